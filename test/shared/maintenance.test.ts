// The maintenance contract on memory storage, in Node and in Chromium.
import { memoryStorage } from "../../src/index.js";
import { ulid } from "../../src/util/ids.js";
import { describeMaintenance, soakAppends } from "./maintenance-contract.js";

describeMaintenance("memoryStorage", {
  async fresh() {
    const id = ulid();
    return { open: (options = {}) => memoryStorage({ id, ...options }) };
  },
  soakAppends: soakAppends(),
});
