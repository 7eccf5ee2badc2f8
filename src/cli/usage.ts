// The command line's help texts, its exit codes and the one error it raises itself: wrong arguments.
import { readFileSync } from "node:fs";

/** Exit codes, as `--help` documents them. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

const EXIT_CODES = `exit codes:
  0  done (also when the reader of the output stops early, as in \`| head\`)
  1  failed: a file that is missing, unreadable or damaged, or bad input (one line on stderr)
  2  wrong arguments (the usage on stderr)`;

export const AVRO_HELP = `usage:
  avalanche-web avro cat FILE                 print each record as a line of Avro JSON
  avalanche-web avro info FILE                schema variant, codec, blocks, records, points per channel
  avalanche-web avro convert FILE OUT.parquet the long table of the file, as Parquet (zstd)
  avalanche-web avro write OUT.avro [--codec null|deflate|snappy] < records.jsonl
                                              Avro JSON lines (as cat prints them) to a file; snappy by default

${EXIT_CODES}`;

const ROOT_NOTE = `storage: --root DIR (anywhere on the line), else $AVALANCHE_ROOT, else ./.avalanche`;

export const TABLES_HELP = `usage:
  avalanche-web tables [ls] [--json|--csv]       every table: snapshots, rows, live files, bytes
  avalanche-web tables show NS.TABLE [--json]    schema (provenance columns marked), snapshots, rows, files, bytes
  avalanche-web tables history NS.TABLE [--json|--csv]
                                                 snapshots, oldest first, with the run and node that made them
  avalanche-web tables head NS.TABLE [-n 20] [--at SNAPSHOT] [--where "x > 1 and y = 'a'"] [--columns a,b]
                                 [--json|--csv|--parquet FILE]
                                                 the first rows (in commit order) of the table or a snapshot
  --where: column = != < <= > >= value, column in (v, ...), column is [not] null, and, or, ( );
           strings in '...', times as '2026-01-01T00:00:00Z'
${ROOT_NOTE}

${EXIT_CODES}`;

export const SQL_HELP = `usage:
  avalanche-web sql "SELECT ..." [--at NS.TABLE=SNAPSHOT]... [--json|--csv|--parquet FILE]
  avalanche-web sql                              an interactive prompt (statements end with ";"; .help, .quit)
  Every table is a view NS.TABLE, and TABLE alone when no other namespace has one of that name.
${ROOT_NOTE}

${EXIT_CODES}`;

export const RUNS_HELP = `usage:
  avalanche-web runs [ls] [--workflow NAME] [--json|--csv]
                                                 recorded runs, oldest first
  avalanche-web runs show RUN_ID [--json]        status, each node's status, duration, error and logs,
                                                 and the snapshots each node committed (lineage)
  avalanche-web run MODULE#WORKFLOW [--input JSON] [--run-id ID] [--json]
                                                 runs a workflow exported by MODULE (the export's name or
                                                 the workflow's name); a progress bar on a terminal
  avalanche-web rerun RUN_ID --module MODULE --start SLUG [--start SLUG]... [--lazy] [--json]
                                                 runs again part of a recorded run (autorun: the start nodes
                                                 and what follows them; --lazy: the start nodes only)
${ROOT_NOTE}

${EXIT_CODES}
  (run and rerun exit 1 when the run fails or is cancelled)`;

export const MAINTENANCE_HELP = `usage:
  avalanche-web maintain [--namespace NS] [--grace-ms MS] [--retain-ms MS] [--min-snapshots N]
                         [--no-compact] [--no-expire] [--json]
                                                 flushes inlined appends, compacts small files, expires
                                                 snapshots older than --retain-ms (5 days) keeping the newest
                                                 --min-snapshots (1), deletes files unreferenced for
                                                 --grace-ms (1 hour), cleans up the catalog log
  avalanche-web compact NS.TABLE [--target-bytes N] [--min-files 2] [--json]
                                                 merges runs of small files into files near --target-bytes
                                                 (16 MiB); old files stay until their snapshots expire
  avalanche-web vacuum [--older-than-ms MS] [--namespace NS] [--json]
                                                 removes data files no snapshot references (older than one
                                                 hour by default) and the catalog's own leftovers
${ROOT_NOTE}

${EXIT_CODES}`;

export const SERVE_HELP = `usage:
  avalanche-web serve [--root DIR] [--port 8080] [--host 127.0.0.1] [--token T] [--module FILE]...
                      [--max-body BYTES] [--max-ingest BYTES] [--drain-ms MS]
    REST: GET /namespaces, /tables, /tables/NS/TABLE, .../schema, .../history, .../scan; POST /sql;
    GET /runs, /runs/ID; POST /hooks/WORKFLOW (starts a run); POST /tables/NS/TABLE/ingest (Avro stream
    files, once per Idempotency-Key); GET /openapi.json.
    Workflows come from --module files; those declared with a schedule run on time.
    Schedules: ava.workflow({ name, schedule: "0 * * * *", catchUp: "latest"|"all"|"none" }) in a module.
    Auth: a host other than loopback needs --token (or $AVALANCHE_TOKEN, 16+ characters). With a token every
    route but /health and /openapi.json wants "Authorization: Bearer T"; without one, reads are open and
    mutating routes (webhooks, ingest) are refused. SIGINT/SIGTERM drain in-flight requests and runs.
${EXIT_CODES}`;

export const WORKER_HELP = `usage:
  avalanche-web worker --queue Q --module FILE [--module FILE]... [--redis redis://HOST:PORT]
                       [--concurrency 1] [--prefix bull] [--lock-ms 30000] [--stalled-ms 30000] [--max-stalled 1]
    Runs the nodes a bullmqExecutor({ connection, queue: Q }) queues, for the workflows FILE exports, on any
    machine that reaches Redis (--redis, else $AVALANCHE_REDIS, else redis://127.0.0.1:6379) and the runs'
    storage (a shared folder, or the S3 + Postgres warehouse). A worker that dies mid-node has its job rerun
    by another once its lock (--lock-ms) lapses, up to --max-stalled times; a node's rows and stream
    progress commit together, so no row is written twice.
    SIGINT/SIGTERM let running nodes finish.
${EXIT_CODES}`;

export const HELP = `avalanche-web — tables, runs, SQL and Avro stream telemetry files from the command line

usage:
  avalanche-web tables [ls|show|history|head] ...  the tables of a storage (tables --help)
  avalanche-web sql ["SELECT ..."]                  SQL over every table, with native DuckDB (sql --help)
  avalanche-web runs [ls|show] ...                  recorded workflow runs (runs --help)
  avalanche-web run MODULE#WORKFLOW [--input JSON]  runs a workflow
  avalanche-web rerun RUN_ID --module MODULE --start SLUG [--lazy]
  avalanche-web maintain                            flush, compact, expire snapshots, delete old files
  avalanche-web compact NS.TABLE                    merges a table's small files (compact --help)
  avalanche-web vacuum                              removes orphaned files (vacuum --help)
  avalanche-web serve                               the HTTP server: REST, SQL, webhooks, schedules (serve --help)
  avalanche-web worker --queue Q --module FILE      runs workflow steps queued on Redis by bullmqExecutor (worker --help)
${AVRO_HELP.replace(`\n\n${EXIT_CODES}`, "").replace("usage:\n", "")}
  avalanche-web --help | -h                        this help (GROUP --help: that group's commands)
  avalanche-web --version | -v                     the package's version

${ROOT_NOTE}

${EXIT_CODES}`;

/** Wrong arguments: the caller prints the message and `help` on stderr and exits with EXIT.usage. */
export class UsageError extends Error {
  override readonly name = "UsageError";
  constructor(
    message: string,
    readonly help: string,
  ) {
    super(message);
  }
}

export const isUsageError = (err: unknown): err is UsageError =>
  (err as { name?: unknown } | null)?.name === "UsageError";

export const wantsHelp = (args: readonly string[]) => args.some((a) => a === "--help" || a === "-h");

/** The version in the package's own package.json (two folders up from src/cli and from dist/cli alike). */
export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
  return String(pkg.version);
}
