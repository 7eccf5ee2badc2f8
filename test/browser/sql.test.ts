// SQL with duckdb-wasm in its own Worker, in real Chromium, over OPFS + IndexedDB storage. Every request
// the page and its Workers make is watched: DuckDB must never reach beyond the local test server.
import { beforeAll, expect, it } from "vitest";
import { commands } from "vitest/browser";
import { browserStorage } from "../../src/index.js";
import { open } from "../../src/sql.js";
import { ulid } from "../../src/util/ids.js";
import { describeSql, describeSqlHardening } from "../shared/sql-contract.js";

const PROBE = "http://avalanche-probe.invalid/";

beforeAll(async () => {
  await commands.watchNetwork();
});

it("the network watch sees requests from the page and from a Worker (control)", async () => {
  await fetch(`${PROBE}page`).catch(() => {});
  const worker = new Worker(
    URL.createObjectURL(new Blob([`fetch("${PROBE}worker").catch(() => {}).finally(() => postMessage(1));`])),
  );
  await new Promise((resolve) => worker.addEventListener("message", resolve));
  worker.terminate();
  await expect
    .poll(() => commands.externalRequests())
    .toEqual(expect.arrayContaining([`${PROBE}page`, `${PROBE}worker`]));
});

describeSql("duckdb-wasm on browserStorage", {
  open: (ns) => open(ns),
  storage: () => browserStorage({ name: `sql${ulid()}`, persist: false }),
});

describeSqlHardening("duckdb-wasm on browserStorage", {
  open: (ns) => open(ns),
  storage: () => browserStorage({ name: `sql${ulid()}`, persist: false }),
});

it("no SQL test attempted a network request", async () => {
  const requests = (await commands.externalRequests()).filter((u) => !u.startsWith(PROBE));
  expect(requests).toEqual([]);
});
