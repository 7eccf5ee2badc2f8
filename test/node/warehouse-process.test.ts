// The warehouse storage across processes and failures, on real servers (s3rver + a Postgres cluster):
// 4 processes appending through one catalog and one bucket lose and duplicate nothing; a writer killed
// with SIGKILL leaves the state before its commit or after it, never between; a Postgres restart mid-run
// fails appends with typed errors and then recovers; wrong credentials and bad settings are clear
// AvaErrors that leave nothing half-written.
import { type ChildProcess, spawn } from "node:child_process";
import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isAvaError } from "../../src/errors.js";
import {
  postgresCatalog,
  s3FileStore,
  type Storage,
  type WarehouseDescriptor,
  warehouseStorage,
} from "../../src/node.js";
import { optionalModule } from "../../src/storage/warehouse/optional-module.js";
import { expectAvaError } from "../shared/fixtures.js";
import { batchesOf, batchRows, Rel } from "../shared/rel.js";
import { cuttingProxy } from "./fixtures/cutting-proxy.js";
import { freePort } from "./fixtures/postgres-server.js";
import { useWarehouseServers } from "./fixtures/warehouse-servers.js";

const CHILD = join(import.meta.dirname, "fixtures", "warehouse-child.ts");

const servers = useWarehouseServers();
const pg = () => servers.pg();
const s3 = () => servers.s3();

let counter = 0;
function location(): WarehouseDescriptor {
  const name = `p${++counter}_${Math.random().toString(36).slice(2, 8)}`;
  return {
    kind: "warehouse",
    s3: { bucket: s3().bucket, prefix: `${name}/`, client: s3().client },
    postgres: { connectionString: pg().url(), schema: name },
  };
}

function open(d: WarehouseDescriptor): Storage {
  return warehouseStorage({
    files: s3FileStore({ bucket: d.s3.bucket, prefix: d.s3.prefix, client: d.s3.client! }),
    catalog: postgresCatalog(d.postgres),
  });
}

async function openRel(d: WarehouseDescriptor) {
  const ns = await Rel.open({ storage: open(d) });
  await ns.push();
  return ns;
}

function startWriter(
  d: WarehouseDescriptor,
  writer: string,
  batches: number,
  rows: number,
  mode = "",
): ChildProcess {
  return spawn(
    process.execPath,
    ["--import", "tsx", CHILD, JSON.stringify(d), writer, String(batches), String(rows), mode],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
}

function exited(
  child: ChildProcess,
): Promise<{ code: number | null; signal: string | null; stderr: string }> {
  let stderr = "";
  child.stderr!.on("data", (d) => {
    stderr += d;
  });
  return new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal, stderr })));
}

function firstLine(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    child.stdout!.once("data", () => resolve());
    child.once("exit", (code) => reject(new Error(`writer exited (${code}) before its first commit`)));
  });
}

describe("warehouseStorage across processes", () => {
  it("4 processes appending 12 batches each through one catalog and bucket: every row exactly once", async () => {
    const d = location();
    await openRel(d);
    const results = await Promise.all(["w0", "w1", "w2", "w3"].map((w) => exited(startWriter(d, w, 12, 50))));
    for (const r of results) expect(r, r.stderr).toMatchObject({ code: 0 });

    const ns = await openRel(d);
    const history = await ns.batches.history();
    expect(history).toHaveLength(48);
    expect(history.map((s) => s.sequenceNumber)).toEqual(Array.from({ length: 48 }, (_, i) => i + 1));
    const rows = (await ns.batches.read()).toArray().map((r) => `${r.writer}/${r.batch}/${r.row}`);
    expect(rows).toHaveLength(4 * 12 * 50);
    expect(new Set(rows).size).toBe(rows.length);
  }, 240_000);

  it("a writer killed with SIGKILL before, in and after commits: each state is whole, orphans vacuum away", async () => {
    const d = location();
    await openRel(d);
    const modes = ["", "kill-after-write", "kill-in-commit", "kill-in-commit", "kill-in-commit"];
    for (const [round, mode] of modes.entries()) {
      const child = startWriter(d, `k${round}`, 0, 2_000, mode);
      const done = exited(child);
      await firstLine(child);
      if (mode === "") {
        await new Promise((r) => setTimeout(r, Math.random() * 200));
        child.kill("SIGKILL");
      }
      expect((await done).signal).toBe("SIGKILL");

      // A fresh instance, as another machine would open it: each committed batch whole, none half there.
      const ns = await openRel(d);
      const history = await ns.batches.history();
      expect(history.length).toBeGreaterThanOrEqual(round + 1);
      const last = await ns.batches.read();
      expect(last.numRows).toBe(history.at(-1)!.totalRows);
      const perBatch = batchesOf(last);
      expect([...perBatch.values()].every((n) => n === 2_000)).toBe(true);
      expect(perBatch.size).toBe(history.length);
    }
    const ns = await openRel(d);
    const history = await ns.batches.history();
    const referenced = new Set(history.flatMap((s) => s.addedFiles.map((f) => f.path)));
    await ns.vacuum({ olderThanMs: 0 });
    const inBucket = (await ns.storage.files.list("data/")).map((f) => f.path);
    expect(new Set(inBucket)).toEqual(referenced);
  }, 300_000); // each round starts a process (tsx, the S3 SDK, parquet-wasm): seconds on a busy machine
});

describe("warehouseStorage when Postgres restarts mid-run", () => {
  it("appends fail with IO_ERROR/UNAVAILABLE while it is down, then succeed; nothing lost, duplicated or partial", async () => {
    const d = location();
    const ns = await openRel(d);
    const succeeded: number[] = [];
    const failures: unknown[] = [];
    let stop = false;
    const writer = (async () => {
      for (let b = 0; !stop; b++) {
        try {
          await ns.batches.append(batchRows("r", b, 100));
          succeeded.push(b);
        } catch (err) {
          failures.push(err);
        }
      }
    })();
    await new Promise((r) => setTimeout(r, 500));
    // Down for 3 s: longer than the default retries (about 1.5 s), so some appends must fail.
    await pg().restart(3_000);
    const after = succeeded.length;
    await new Promise((r) => setTimeout(r, 1_000));
    stop = true;
    await writer;

    expect(failures.length).toBeGreaterThan(0);
    for (const err of failures) {
      expect(isAvaError(err), String(err)).toBe(true);
      expect(["IO_ERROR", "UNAVAILABLE"]).toContain((err as { code: string }).code);
    }
    expect(succeeded.length).toBeGreaterThan(after); // it recovered on its own
    const fresh = await openRel(d);
    const perBatch = batchesOf(await fresh.batches.read());
    for (const b of succeeded) expect(perBatch.get(`r/${b}`)).toBe(100); // every acknowledged append, once
    expect([...perBatch.values()].every((n) => n === 100)).toBe(true);
    expect((await fresh.batches.history()).length).toBe(perBatch.size);
  }, 60_000);
});

describe("warehouseStorage when a commit's answer is lost", () => {
  it("a connection cut after the INSERT reached the server: the writer asks, and the commit lands exactly once", async () => {
    const d = location();
    await openRel(d);
    const proxy = await cuttingProxy(pg().port);
    try {
      const viaProxy = pg().url().replace(`:${pg().port}/`, `:${proxy.port}/`);
      const ns = await Rel.open({
        storage: warehouseStorage({
          files: s3FileStore({ bucket: d.s3.bucket, prefix: d.s3.prefix, client: d.s3.client! }),
          catalog: postgresCatalog({ connectionString: viaProxy, schema: d.postgres.schema }),
        }),
      });
      await ns.batches.history(); // connected and caught up before the cut
      proxy.arm(/INSERT INTO "[^"]+"\.log/);
      const res = await ns.batches.append(batchRows("cut", 0, 10));
      expect(proxy.cuts).toBe(1); // the commit's answer really was lost
      await ns.batches.append(batchRows("cut", 1, 10)); // and the writer goes on normally

      const fresh = await openRel(d);
      const history = await fresh.batches.history();
      expect(history.map((s) => s.id)).toEqual([res.snapshotId, expect.any(String)]);
      expect([...batchesOf(await fresh.batches.read())]).toEqual([
        ["cut/0", 10],
        ["cut/1", 10],
      ]);
    } finally {
      await proxy.close();
    }
  });
});

describe("warehouseStorage refusals", () => {
  it("unknown S3 credentials: UNAUTHORIZED, and nothing lands in the bucket", async () => {
    const d = location();
    const files = s3FileStore({
      bucket: s3().bucket,
      prefix: d.s3.prefix,
      client: { ...s3().client, credentials: { accessKeyId: "NOBODY", secretAccessKey: "wrong" } },
    });
    await expectAvaError(files.write("data/x.bin", new Uint8Array([1])), "UNAUTHORIZED", /credentials/);
    await expectAvaError(files.read("data/x.bin"), "UNAUTHORIZED");
    const good = s3FileStore({ bucket: s3().bucket, prefix: d.s3.prefix, client: s3().client });
    expect(await good.list("")).toEqual([]);
  });

  it("a missing bucket is NOT_FOUND naming it", async () => {
    const files = s3FileStore({ bucket: "no-such-bucket", client: s3().client, conditionalWrites: false });
    await expectAvaError(files.write("data/x.bin", new Uint8Array([1])), "NOT_FOUND", /no-such-bucket/);
  });

  it("a wrong Postgres password: UNAUTHORIZED, with the password kept out of the message", async () => {
    const d = location();
    const bad = pg().url().replace(pg().password, "not-the-password");
    const ns = await Rel.open({
      storage: warehouseStorage({
        files: s3FileStore({ bucket: s3().bucket, prefix: d.s3.prefix, client: s3().client }),
        catalog: postgresCatalog({ connectionString: bad, schema: d.postgres.schema }),
      }),
    });
    const err = await expectAvaError(ns.push(), "UNAUTHORIZED", /refused the credentials/);
    expect(err.message).not.toContain("not-the-password");
    // Nothing half-made: the catalog's schema does not exist.
    const client = new (await import("pg")).default.Client(pg().url());
    await client.connect();
    try {
      const { rows } = await client.query(
        "SELECT 1 FROM information_schema.schemata WHERE schema_name = $1",
        [d.postgres.schema],
      );
      expect(rows).toEqual([]);
    } finally {
      await client.end();
    }
  });

  it("a connection string that is not a Postgres URL is refused at once; an unreachable server is UNAVAILABLE", async () => {
    expect(() => postgresCatalog({ connectionString: "host=localhost user=x" })).toThrow(
      expect.objectContaining({
        code: "INVALID_ARGUMENT",
        message: expect.stringMatching(/postgresql:\/\//),
      }),
    );
    expect(() => postgresCatalog({ connectionString: "postgres://u:p@h/db", schema: "Bad-Name" })).toThrow(
      expect.objectContaining({ code: "INVALID_NAME" }),
    );
    const port = await freePort(); // nothing listens there
    const catalog = postgresCatalog({
      connectionString: `postgresql://ava:secret@127.0.0.1:${port}/postgres`,
      retry: { retries: 1, baseDelayMs: 10 },
    });
    const err = await expectAvaError(catalog.current(), "UNAVAILABLE", new RegExp(`127.0.0.1:${port}`));
    expect(err.message).not.toContain("secret");
  });

  it("a driver that is not installed is UNAVAILABLE naming the package to install", async () => {
    await expectAvaError(
      optionalModule("avalanche-web-no-such-driver", "s3FileStore"),
      "UNAVAILABLE",
      /npm install avalanche-web-no-such-driver/,
    );
  });
});

describe("s3FileStore on a real S3 server", () => {
  it("lists page by page, reads ranges (short at the end, empty past it) and deletes", async () => {
    const d = location();
    const files = s3FileStore({
      bucket: s3().bucket,
      prefix: d.s3.prefix,
      client: s3().client,
      listPageSize: 2,
    });
    for (let i = 0; i < 7; i++) await files.write(`data/t/f${i}.bin`, new Uint8Array([i, i + 1, i + 2]));
    await files.write("other/x.bin", new Uint8Array([9]));
    const listed = (await files.list("data/")).map((f) => f.path).sort();
    expect(listed).toEqual(Array.from({ length: 7 }, (_, i) => `data/t/f${i}.bin`));
    expect([...(await files.readRange("data/t/f3.bin", 1, 5))]).toEqual([4, 5]);
    expect([...(await files.readRange("data/t/f3.bin", 3, 2))]).toEqual([]);
    await expectAvaError(files.readRange("data/t/missing.bin", 0, 2), "NOT_FOUND");
    await files.delete("data/t/f0.bin");
    await files.delete("data/t/f0.bin"); // missing: not an error
    expect(await files.list("data/")).toHaveLength(6);
    await expectAvaError(files.write("../escape.bin", new Uint8Array([1])), "INVALID_NAME");
  });

  it("retries 5xx answers with backoff, and gives up with IO_ERROR when they go on", async () => {
    // A proxy in front of s3rver that answers 503 to the first `failNext` requests.
    let failNext = 0;
    let seen = 0;
    const upstream = new URL(s3().endpoint);
    const proxy = createServer((req, res) => {
      seen++;
      if (failNext > 0) {
        failNext--;
        req.resume();
        res.writeHead(503, { "content-type": "application/xml" });
        res.end("<Error><Code>SlowDown</Code><Message>try later</Message></Error>");
        return;
      }
      const out = request(
        {
          host: upstream.hostname,
          port: upstream.port,
          path: req.url,
          method: req.method,
          headers: req.headers,
        },
        (up) => {
          res.writeHead(up.statusCode!, up.headers);
          up.pipe(res);
        },
      );
      req.pipe(out);
    });
    await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
    try {
      const endpoint = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
      const files = s3FileStore({
        bucket: s3().bucket,
        prefix: location().s3.prefix,
        client: { ...s3().client, endpoint },
        conditionalWrites: false,
        retry: { retries: 3, baseDelayMs: 5 },
      });
      failNext = 3;
      await files.write("data/r.bin", new Uint8Array([7, 8]));
      expect([...(await files.read("data/r.bin"))]).toEqual([7, 8]);
      expect(seen).toBeGreaterThanOrEqual(5);
      failNext = 100;
      await expectAvaError(files.read("data/r.bin"), "IO_ERROR", /503/);
    } finally {
      proxy.close();
    }
  });

  it("uses If-None-Match where the server honours it: the probe finds it, an overwrite is a 412, no HEAD is sent", async () => {
    // s3rver ignores If-None-Match on PUT; this proxy in front of it answers 412 for a key already PUT
    // through it, as AWS S3, MinIO and R2 do, and counts the requests by method.
    const written = new Set<string>();
    const methods: string[] = [];
    const upstream = new URL(s3().endpoint);
    const proxy = createServer((req, res) => {
      methods.push(req.method!);
      const key = req.url!.split("?")[0]!;
      if (req.method === "PUT" && req.headers["if-none-match"] === "*" && written.has(key)) {
        req.resume();
        res.writeHead(412, { "content-type": "application/xml" });
        res.end(
          "<Error><Code>PreconditionFailed</Code><Message>At least one precondition failed</Message></Error>",
        );
        return;
      }
      const out = request(
        {
          host: upstream.hostname,
          port: upstream.port,
          path: req.url,
          method: req.method,
          headers: req.headers,
        },
        (up) => {
          if (req.method === "PUT" && up.statusCode === 200) written.add(key);
          if (req.method === "DELETE") written.delete(key);
          res.writeHead(up.statusCode!, up.headers);
          up.pipe(res);
        },
      );
      req.pipe(out);
    });
    await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
    try {
      const endpoint = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
      const files = s3FileStore({
        bucket: s3().bucket,
        prefix: location().s3.prefix,
        client: { ...s3().client, endpoint },
      });
      await files.write("data/once.bin", new Uint8Array([1, 2, 3]));
      await expectAvaError(files.write("data/once.bin", new Uint8Array([9])), "IO_ERROR", /exists/);
      expect([...(await files.read("data/once.bin"))]).toEqual([1, 2, 3]);
      expect(methods).not.toContain("HEAD");
      expect(await files.list("")).toHaveLength(1); // the probe's object is gone
    } finally {
      proxy.close();
    }
  });
});
