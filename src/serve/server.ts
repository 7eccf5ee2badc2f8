// `startServer(...)`: the storage over HTTP (node:http, no framework). Reads are open on loopback without a
// token; with a token every route but /health and /openapi.json wants `Authorization: Bearer <token>`.
// Mutating routes (webhooks, ingest) always want it: a server started without a token refuses them.
// Binding anything but loopback without a token is refused. close() drains: no new connections, in-flight
// requests and runs finish (runs are cancelled after the drain deadline), the scheduler stops.
import { randomBytes, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { hostname } from "node:os";
import { AvaError } from "../errors.js";
import { openStorage } from "../sql-node.js";
import type { SqlDatabase } from "../sql/database.js";
import type { Storage } from "../storage/types.js";
import type { RunHandle, RunResult } from "../workflow/run-handle.js";
import type { Workflow } from "../workflow/workflow.js";
import { type Clock, systemClock } from "./clock.js";
import { errorResponse, HttpError, sendError, sendJson } from "./http-util.js";
import { openApi } from "./openapi.js";
import { matchRoute, type Route } from "./routes.js";
import { ingestRoutes } from "./routes-ingest.js";
import { runRoutes } from "./routes-runs.js";
import { sqlRoutes } from "./routes-sql.js";
import { tableRoutes } from "./routes-tables.js";
import { Scheduler } from "./scheduler.js";
import type { ServerLimits, ServerState } from "./state.js";

export interface ServerOptions {
  storage: Storage;
  /** Default 127.0.0.1. Anything but loopback needs a token. */
  host?: string;
  /** Default 8080; 0 picks a free port. */
  port?: number;
  /** The bearer token; see the module comment. */
  token?: string;
  /** The workflows webhooks and schedules run. */
  workflows?: readonly Workflow[];
  /** Time for the scheduler (tests pass a ManualClock). Default: the system clock. */
  clock?: Clock;
  limits?: Partial<ServerLimits>;
  /** More routes, mounted beside the built-in ones. */
  routes?: readonly Route[];
  /** How long close() waits for requests and runs before cutting them off. Default 30 s. */
  drainMs?: number;
  /** Where the server reports a background failure (a scheduled run that could not start). Default stderr. */
  onError?: (err: unknown) => void;
  /** The version /openapi.json reports. */
  version?: string;
}

export interface RunningServer {
  readonly url: string;
  readonly port: number;
  readonly scheduler: Scheduler;
  /** Stops accepting, finishes what is in flight, then resolves. */
  close(): Promise<void>;
}

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);
const MAX_RESULTS = 1000;

function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const { storage, host = "127.0.0.1", port = 8080, token, clock = systemClock, drainMs = 30_000 } = options;
  if (!LOOPBACK.has(host) && !token)
    throw new AvaError(
      "INVALID_ARGUMENT",
      `serving on ${host} (not loopback) needs a token (--token T or AVALANCHE_TOKEN)`,
    );
  if (token !== undefined && token.length < 16)
    throw new AvaError("INVALID_ARGUMENT", "the token must be at least 16 characters");
  const onError =
    options.onError ??
    ((err: unknown) => process.stderr.write(`avalanche-web serve: ${(err as Error)?.message ?? err}\n`));
  const workflows = new Map<string, Workflow>();
  for (const w of options.workflows ?? []) {
    if (workflows.has(w.name)) throw new AvaError("INVALID_ARGUMENT", `two workflows are named ${w.name}`);
    workflows.set(w.name, w);
  }
  const given = options.limits ?? {};
  const limits: ServerLimits = {
    maxBodyBytes: given.maxBodyBytes ?? 1 << 20,
    maxIngestBytes: given.maxIngestBytes ?? 64 << 20,
    sqlTimeoutMs: given.sqlTimeoutMs ?? 30_000,
    maxWaitMs: given.maxWaitMs ?? 60_000,
  };

  let sql: Promise<SqlDatabase> | undefined;
  let sqlTables = "";
  const active = new Map<string, RunHandle>();
  const results = new Map<string, RunResult>();
  const runsDone = new Set<Promise<unknown>>();
  const state: ServerState = {
    storage,
    workflows,
    limits,
    active,
    results,
    extra: new Map(),
    startRun(workflow, runOptions) {
      const handle = workflow.run({ storage, ...runOptions });
      active.set(handle.runId, handle);
      const done = handle
        .error()
        .then(
          async () => {
            results.set(handle.runId, await (handle.result().catch((e) => e.result) as Promise<RunResult>));
            if (results.size > MAX_RESULTS) results.delete(results.keys().next().value!);
          },
          (err) => onError(err),
        )
        .finally(() => {
          active.delete(handle.runId);
          runsDone.delete(done);
        });
      runsDone.add(done);
      return handle;
    },
    async sql() {
      // One DuckDB for all queries, opened again when tables come or go (its views are fixed at open).
      const tables = Object.keys((await storage.catalog.current()).tables)
        .sort()
        .join(",");
      if (!sql || tables !== sqlTables) {
        const old = sql;
        sqlTables = tables;
        sql = openStorage(storage);
        sql.catch(() => {
          sql = undefined;
        });
        old?.then((db) => db.close()).catch(() => {});
      }
      return sql;
    },
  };

  const routes: Route[] = [
    {
      method: "GET",
      path: "/health",
      mutating: false,
      summary: "liveness",
      async handler({ res }) {
        sendJson(res, 200, { ok: true });
      },
    },
    {
      method: "GET",
      path: "/openapi.json",
      mutating: false,
      summary: "this description",
      async handler({ res }) {
        sendJson(res, 200, openApi(routes, options.version ?? "0", token !== undefined));
      },
    },
    ...tableRoutes,
    ...sqlRoutes,
    ...runRoutes,
    ...ingestRoutes(limits.maxIngestBytes),
    ...(options.routes ?? []),
  ];
  const open = new Set(["/health", "/openapi.json"]);

  function authorize(req: IncomingMessage, route: Route): void {
    if (!token) {
      if (route.mutating)
        throw new HttpError(
          403,
          "FORBIDDEN",
          "this server was started without a token: it takes no writes (start it with --token)",
        );
      return;
    }
    if (open.has(route.path)) return;
    const header = req.headers.authorization ?? "";
    const given = /^Bearer (.+)$/.exec(header)?.[1];
    if (given === undefined || !sameToken(given, token))
      throw new AvaError("UNAUTHORIZED", "a valid token is needed: Authorization: Bearer <token>");
  }

  let inFlight = 0;
  let idle: (() => void) | undefined;
  let closing = false;
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    inFlight++;
    try {
      if (closing) {
        res.setHeader("connection", "close");
        throw new HttpError(503, "UNAVAILABLE", "the server is shutting down");
      }
      const url = new URL(req.url ?? "/", "http://server");
      const match = matchRoute(routes, req.method ?? "GET", url.pathname);
      if ("status" in match) {
        if (match.status === 405) res.setHeader("allow", match.allowed!.join(", "));
        throw new HttpError(
          match.status,
          match.status === 404 ? "NOT_FOUND" : "METHOD_NOT_ALLOWED",
          match.status === 404
            ? `no route ${url.pathname} (see /openapi.json)`
            : `${req.method} is not allowed on ${url.pathname}`,
        );
      }
      authorize(req, match.route);
      await match.route.handler({ req, res, params: match.params, query: url.searchParams, state });
    } catch (err) {
      const status = errorResponse(err).status;
      // The rest of a refused body is not read: the connection is closed after the answer.
      if (status === 413 || status === 401 || status === 403) res.setHeader("connection", "close");
      if (!(err as { name?: string }).name?.match(/^(HttpError|AvaError)$/)) onError(err);
      sendError(res, err);
    } finally {
      inFlight--;
      if (inFlight === 0) idle?.();
    }
  }

  const server = createServer({ requestTimeout: 120_000, headersTimeout: 30_000 }, (req, res) => {
    void handle(req, res);
  });
  server.maxHeadersCount = 100;
  await new Promise<void>((resolve, reject) => {
    server.once("error", (err: NodeJS.ErrnoException) =>
      reject(
        new AvaError(
          err.code === "EADDRINUSE" ? "UNAVAILABLE" : "IO_ERROR",
          `cannot listen on ${host}:${port}: ${err.message}`,
          { cause: err },
        ),
      ),
    );
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  const actualPort = typeof address === "object" && address ? address.port : port;
  const serverId = `${hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`;
  const scheduler = new Scheduler({
    storage,
    workflows: [...workflows.values()],
    clock,
    serverId,
    start: (workflow, o) => state.startRun(workflow, o),
    onError,
  });
  scheduler.start();

  let closed: Promise<void> | undefined;
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${actualPort}`,
    port: actualPort,
    scheduler,
    close() {
      closed ??= (async () => {
        closing = true;
        const stopped = new Promise<void>((r) => server.close(() => r()));
        server.closeIdleConnections();
        await scheduler.stop();
        const deadline = new Promise<void>((r) => setTimeout(r, drainMs).unref());
        const requests = inFlight === 0 ? Promise.resolve() : new Promise<void>((r) => (idle = r));
        await Promise.race([Promise.all([requests, Promise.all([...runsDone])]), deadline]);
        // Past the deadline: runs are cancelled (they record it), connections cut.
        for (const h of active.values()) h.cancel();
        await Promise.race([Promise.all([...runsDone]), new Promise((r) => setTimeout(r, 5000).unref())]);
        server.closeAllConnections();
        await stopped;
        await (await sql?.catch(() => undefined))?.close();
      })();
      return closed;
    },
  };
}
