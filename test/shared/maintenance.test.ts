// The maintenance contract on memory storage, in Node and in Chromium.
import { memoryStorage } from "../../src/index.js";
import { ulid } from "../../src/util/ids.js";
import { describeMaintenance } from "./maintenance-contract.js";

describeMaintenance("memoryStorage", {
  async fresh() {
    const id = ulid();
    return { open: (options = {}) => memoryStorage({ id, ...options }) };
  },
  // The full soak of the issue (20,000 appends) runs with AVA_SOAK_APPENDS=20000; npm test runs 2,000.
  soakAppends: Number(
    (globalThis as { process?: { env?: Record<string, string> } }).process?.env?.AVA_SOAK_APPENDS ?? 2000,
  ),
});
