// s3FileStore on a real S3 HTTP server (s3rver, and proxies in front of it that fail or honour
// If-None-Match on purpose): paginated listing, ranged reads, deletion, retries, conditional writes.
import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { s3FileStore } from "../../src/node.js";
import { expectAvaError } from "../shared/fixtures.js";
import { useWarehouseServers } from "./fixtures/warehouse-servers.js";

const servers = useWarehouseServers();
const s3 = () => servers.s3();
const location = () => servers.location();

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
