// The Avro writer bench page: bench/avro-writer-cases.ts on the main thread of Chromium, beside avsc's
// browser build (avsc-peer.ts).
import { writerCases } from "../avro-writer-cases.js";
import { avscBrowser } from "./avsc-peer.js";
import { report, timed } from "./report.js";

await report(() => writerCases(timed, async () => (await avscBrowser()).blocks));
