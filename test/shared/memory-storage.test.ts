import { memoryStorage } from "../../src/index.js";
import { ulid } from "../../src/util/ids.js";
import { describeSchemaEvolution } from "./schema-evolution-contract.js";
import { describeSubscriptions } from "./subscribe-contract.js";
import { describeStorage } from "./storage-contract.js";

describeStorage("memoryStorage", {
  async fresh() {
    const id = ulid();
    return { open: () => memoryStorage({ id }) };
  },
});

describeSchemaEvolution("memoryStorage", {
  async fresh() {
    const id = ulid();
    return { open: () => memoryStorage({ id }) };
  },
});

describeSubscriptions("memoryStorage", {
  async fresh() {
    const id = ulid();
    return { open: () => memoryStorage({ id }) };
  },
});
