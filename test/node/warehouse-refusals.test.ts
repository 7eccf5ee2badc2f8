// The warehouse storage refusing bad input, on real servers: wrong credentials are UNAUTHORIZED, bad
// settings are clear AvaErrors at once, an unreachable server is UNAVAILABLE — and nothing is half-written.
import { describe, expect, it } from "vitest";
import { postgresCatalog, s3FileStore, warehouseStorage } from "../../src/node.js";
import { optionalModule } from "../../src/storage/warehouse/optional-module.js";
import { expectAvaError } from "../shared/fixtures.js";
import { Rel } from "../shared/rel.js";
import { freePort } from "./fixtures/postgres-server.js";
import { useWarehouseServers } from "./fixtures/warehouse-servers.js";

const servers = useWarehouseServers();
const pg = () => servers.pg();
const s3 = () => servers.s3();
const location = () => servers.location();

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
