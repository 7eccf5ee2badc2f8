// The app's own worker-thread entry.
import * as ava from "avalanche-web/node";
import { dashboardFlow } from "./flow.js";

ava.serveWorkflows(dashboardFlow);
