// The catalog log in Postgres: entry N is a row of `<schema>.log` with primary key N, published by one
// `INSERT … ON CONFLICT DO NOTHING` — the row is there or not (one statement, one transaction), and of
// writers racing for N exactly one inserts it, across processes and machines. The loser catches up,
// rebases and tries N + 1 (LogCatalog). Commits are announced with NOTIFY in the same statement, which
// Postgres delivers only if it commits; subscribers LISTEN.
import { AvaError } from "../../errors.js";
import { type CatalogLog, logGap, type StagedEntry } from "../catalog/log-catalog.js";
import { pgError } from "./postgres-errors.js";
import {
  isTransientPg,
  loadPg,
  type Pool,
  poolFor,
  query,
  type Queries,
  transaction,
} from "./postgres-pool.js";
import { ensureSchema } from "./postgres-schema.js";
import { type RetryOptions, withRetry } from "./retry.js";

export interface PostgresLogOptions {
  connectionString: string;
  schema: string;
  retry: RetryOptions;
  /** How often a subscriber retries a lost LISTEN connection, in ms. */
  pollMs: number;
}

const bytesOf = (b: Uint8Array) => new Uint8Array(b.buffer, b.byteOffset, b.byteLength);

export class PostgresCatalogLog implements CatalogLog {
  readonly #q: Queries & { pool: () => Promise<Pool> };
  readonly #options: PostgresLogOptions;
  readonly #s: string;
  readonly #channel: string;

  constructor(options: PostgresLogOptions, server: string) {
    this.#options = options;
    this.#s = `"${options.schema}"`;
    this.#channel = `ava_catalog_${options.schema}`;
    const base: Queries & { pool: () => Promise<Pool> } = {
      server,
      retry: options.retry,
      pool: () => poolFor(options.connectionString),
    };
    // Every statement first makes sure the tables exist (once per process; later calls cost nothing).
    const key = `${options.connectionString}\n${options.schema}`;
    this.#q = {
      ...base,
      pool: () => ensureSchema(base, key, options.schema).then(base.pool),
    };
  }

  async #rows<R extends Record<string, unknown>>(what: string, sql: string, values: unknown[] = []) {
    return query<R>(this.#q, what, sql, values);
  }

  async readFrom(version: number): Promise<string[]> {
    // One statement reads one consistent snapshot of the log: a hole in it is a lost entry, not a race.
    const rows = await this.#rows<{ version: string; entry: string }>(
      `reading catalog entries from ${version}`,
      `SELECT version, entry FROM ${this.#s}.log WHERE version >= $1 ORDER BY version`,
      [version],
    );
    return rows.map((row, i) => {
      if (Number(row.version) !== version + i) throw logGap(version + i, row.version);
      return row.entry;
    });
  }

  entryName(version: number): string {
    return `row ${version} of ${this.#options.schema}.log`;
  }

  async stage(entry: string): Promise<StagedEntry> {
    // Nothing to write ahead: the INSERT is atomic on its own. The id tells this writer's row from others'.
    const commitId = globalThis.crypto.randomUUID();
    return {
      publish: (version) => this.#publish(version, entry, commitId),
      discard: async () => {},
    };
  }

  async #publish(version: number, entry: string, commitId: string): Promise<boolean> {
    const what = `writing catalog entry ${version}`;
    const insert = async () => {
      const pool = await this.#q.pool();
      const { rowCount } = await pool.query(
        `WITH ins AS (
           INSERT INTO ${this.#s}.log (version, entry, commit_id) VALUES ($1, $2, $3)
           ON CONFLICT DO NOTHING RETURNING version)
         SELECT pg_notify($4, version::text) FROM ins`,
        [version, entry, commitId, this.#channel],
      );
      return rowCount === 1;
    };
    // Which version holds this writer's entry, if any (asked when an INSERT's outcome is unknown).
    const landed = async () => {
      const [row] = await this.#rows<{ version: string }>(
        what,
        `SELECT version FROM ${this.#s}.log WHERE commit_id = $1`,
        [commitId],
      );
      return row === undefined ? undefined : Number(row.version);
    };
    let ambiguous = false;
    try {
      const inserted = await withRetry(
        async () => {
          try {
            if (await insert()) return true;
          } catch (err) {
            // The connection broke: the INSERT may have committed with its answer lost. Never guess —
            // a guess of "lost the race" would publish the same ops again as N + 1.
            if (isTransientPg(err)) ambiguous = true;
            throw err;
          }
          if (!ambiguous) return false;
          const at = await landed();
          if (at === undefined) return false;
          if (at === version) return true;
          throw new AvaError("IO_ERROR", `${what}: the entry landed as version ${at}`);
        },
        isTransientPg,
        this.#options.retry,
      );
      return inserted;
    } catch (err) {
      if (ambiguous) {
        // Out of retries with the outcome unknown: one last look before reporting failure.
        const at = await landed().catch(() => undefined);
        if (at === version) return true;
        throw pgError(
          err,
          `${what} (the server went away mid-commit; ${at === undefined ? "it did not land as far as could be seen" : "outcome unknown"})`,
          this.#q.server,
        );
      }
      throw pgError(err, what, this.#q.server);
    }
  }

  async latestCheckpoint(): Promise<{ version: number; state: Uint8Array } | undefined> {
    const [row] = await this.#rows<{ version: string; state: Uint8Array }>(
      "reading the newest catalog checkpoint",
      `SELECT version, state FROM ${this.#s}.checkpoints ORDER BY version DESC LIMIT 1`,
    );
    return row && { version: Number(row.version), state: bytesOf(row.state) };
  }

  async writeCheckpoint(version: number, state: Uint8Array): Promise<void> {
    // Two writers checkpointing the same version write the same state: whichever lands first stays.
    await this.#rows(
      `writing catalog checkpoint ${version}`,
      `INSERT INTO ${this.#s}.checkpoints (version, state) VALUES ($1, $2) ON CONFLICT (version) DO NOTHING`,
      [version, Buffer.from(state.buffer, state.byteOffset, state.byteLength)],
    );
  }

  async checkpointHeads(bytes: number): Promise<{ version: number; head: Uint8Array }[]> {
    const rows = await this.#rows<{ version: string; head: Uint8Array }>(
      "listing catalog checkpoints",
      `SELECT version, substring(state FROM 1 FOR $1) AS head FROM ${this.#s}.checkpoints ORDER BY version`,
      [bytes],
    );
    return rows.map((r) => ({ version: Number(r.version), head: bytesOf(r.head) }));
  }

  async removeCheckpoints(versions: readonly number[]): Promise<void> {
    await this.#rows(
      `removing catalog checkpoints ${versions.join(", ")}`,
      `DELETE FROM ${this.#s}.checkpoints WHERE version = ANY($1::bigint[])`,
      [versions],
    );
  }

  async removeBefore(version: number): Promise<string[]> {
    // One transaction: checkpoints and the entries they cover go together, or neither does.
    return transaction(this.#q, `removing catalog entries before ${version}`, async (client) => {
      const checkpoints = await client.query<{ version: string }>(
        `DELETE FROM ${this.#s}.checkpoints WHERE version < $1 RETURNING version`,
        [version],
      );
      const entries = await client.query<{ version: string }>(
        `DELETE FROM ${this.#s}.log WHERE version < $1 RETURNING version`,
        [version],
      );
      return [
        ...checkpoints.rows.map((r) => `checkpoint ${r.version} of ${this.#options.schema}.checkpoints`),
        ...entries.rows.map((r) => this.entryName(Number(r.version))),
      ].sort();
    });
  }

  async vacuum(): Promise<string[]> {
    return []; // nothing is staged on the server: a killed writer leaves no leftover
  }

  /**
   * Other processes' commits arrive as notifications on a connection of its own. If that connection is
   * lost (server restart), it is made again every `pollMs`, and a catch-up follows each reconnect, since
   * notifications sent meanwhile are gone.
   */
  watch(onChange: () => void): () => void {
    let closed = false;
    let client: import("pg").Client | undefined;
    let connecting = false;
    const connect = async () => {
      if (closed || client || connecting) return;
      connecting = true;
      try {
        const pg = await loadPg();
        await this.#q.pool(); // the schema exists before we listen to it
        const c = new pg.Client({ connectionString: this.#options.connectionString });
        c.on("error", () => {
          if (client === c) client = undefined;
          c.end().catch(() => {});
        });
        c.on("notification", () => onChange());
        await c.connect();
        await c.query(`LISTEN "${this.#channel}"`);
        // The listening socket must not keep the process alive (as fs.watch with persistent: false).
        (c as unknown as { connection?: { stream?: { unref?(): void } } }).connection?.stream?.unref?.();
        if (closed) await c.end();
        else {
          client = c;
          onChange();
        }
      } catch {
        // the next tick tries again
      } finally {
        connecting = false;
      }
    };
    void connect();
    const timer = setInterval(() => void connect(), this.#options.pollMs);
    timer.unref();
    return () => {
      closed = true;
      clearInterval(timer);
      client?.end().catch(() => {});
      client = undefined;
    };
  }
}
