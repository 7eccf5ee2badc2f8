// The app's own worker entry: bundled by the app like any of its modules.
import * as ava from "avalanche-web";
import { dashboardFlow } from "./flow";

ava.serveWorkflows(dashboardFlow);
