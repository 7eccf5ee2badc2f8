import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { nodeStorage } from "../../src/node.js";
import { describeSchemaEvolution } from "../shared/schema-evolution-contract.js";
import { describeSubscriptions } from "../shared/subscribe-contract.js";
import { describeStorage } from "../shared/storage-contract.js";

describeStorage("nodeStorage", {
  async fresh() {
    const root = await mkdtemp(join(tmpdir(), "ava-contract-"));
    return { open: () => nodeStorage({ root }) };
  },
});

describeSchemaEvolution("nodeStorage", {
  async fresh() {
    const root = await mkdtemp(join(tmpdir(), "ava-evolve-"));
    return { open: () => nodeStorage({ root }) };
  },
});

describeSubscriptions("nodeStorage", {
  async fresh() {
    const root = await mkdtemp(join(tmpdir(), "ava-subscribe-"));
    return { open: () => nodeStorage({ root }) };
  },
});
