// Where a page's POST of a live batch spends its time (issue 13's Chromium floor), without DevTools attached:
// Chromium is started directly (not through Playwright, whose DevTools session slows ArrayBuffer bodies
// 10-20x), loads a page from this server and POSTs SIZE bytes N times, one at a time and two at a time, as a
// Blob (the library's body in a browser) and as a Uint8Array. Per request: fetch() called -> the server sees
// the headers (the body is staged inside Chromium meanwhile) -> the server has read the body -> the page has
// the answer. Then the CPU each Chromium process used, against the bytes posted.
// Usage: node --import tsx bench/chromium-upload.ts [sizeBytes = 3.5 MB, a 250,000-point batch] [n = 30]
import { execFileSync, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CHROMIUM_ARGS, chromiumPath } from "../scripts/chromium-path.mjs";

const SIZE = Number(process.argv[2] ?? 3_500_000);
const N = Number(process.argv[3] ?? 30);

/** The page: its timings go back to `/result` as JSON. */
const page = `<!doctype html><script type=module>
const bytes = new Uint8Array(${SIZE});
for (let i = 0; i < bytes.length; i += 65536) crypto.getRandomValues(bytes.subarray(i, i + 65536));
const now = () => performance.timeOrigin + performance.now();
const out = {};
async function run(name, body, inFlight) {
  const one = async () => {
    const t = now();
    const s = await (await fetch("/post", { method: "POST", body: body() })).json();
    return [t, s.head, s.end, now()];
  };
  await one();
  const rows = [];
  let next = 0;
  const t0 = now();
  await Promise.all(Array.from({ length: inFlight }, async () => { while (next++ < ${N}) rows.push(await one()); }));
  const ms = now() - t0;
  const med = (f) => rows.map(f).sort((a, b) => a - b)[rows.length >> 1].toFixed(1);
  out[name] = { "ms/request": (ms / ${N}).toFixed(1), "MB/s": ((${SIZE} * ${N}) / ms / 1000).toFixed(1),
    "fetch->headers": med((r) => r[1] - r[0]), "headers->body read": med((r) => r[2] - r[1]), "->answer": med((r) => r[3] - r[2]) };
}
await run("Blob, 1 in flight", () => new Blob([bytes]), 1);
await run("Blob, 2 in flight", () => new Blob([bytes]), 2);
await run("Uint8Array, 1 in flight", () => bytes, 1);
await run("Uint8Array, 2 in flight", () => bytes, 2);
await fetch("/result", { method: "POST", body: JSON.stringify(out) });
</script>`;

let done!: (r: unknown) => void;
const result = new Promise((r) => (done = r));
const server = createServer((req, res) => {
  if (req.method === "GET") return void res.writeHead(200, { "content-type": "text/html" }).end(page);
  const head = performance.timeOrigin + performance.now();
  const chunks: Buffer[] = [];
  req.on("data", (d: Buffer) => req.url === "/result" && chunks.push(d));
  req.on("end", () => {
    if (req.url === "/result") {
      res.end();
      return done(JSON.parse(Buffer.concat(chunks).toString()));
    }
    const end = performance.timeOrigin + performance.now();
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ head, end }));
  });
});
server.keepAliveTimeout = 60_000;
await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
const { port } = server.address() as { port: number };
const profile = await mkdtemp(join(tmpdir(), "ava-bench-upload-"));
const chromium = spawn(
  chromiumPath() ?? "/usr/bin/chromium",
  ["--headless", ...CHROMIUM_ARGS, `--user-data-dir=${profile}`, `http://127.0.0.1:${port}/`],
  { stdio: "ignore" },
);
try {
  console.table(await result);
  // CPU seconds of each of this Chromium's processes (they all name the profile folder on their command line).
  const ps = execFileSync("ps", ["-eo", "times=,args="]).toString().split("\n");
  const cpu: Record<string, number> = {};
  for (const line of ps.filter((l) => l.includes(profile))) {
    const [seconds, ...args] = line.trim().split(/\s+/);
    const cmd = args.join(" ");
    const kind = /--utility-sub-type=(\S+)/.exec(cmd)?.[1] ?? /--type=(\S+)/.exec(cmd)?.[1] ?? "browser";
    cpu[kind] = (cpu[kind] ?? 0) + Number(seconds);
  }
  const mb = (4 * (N + 1) * SIZE) / 1e6;
  console.log(`Chromium CPU seconds for ${mb.toFixed(0)} MB posted:`, cpu);
  const total = Object.values(cpu).reduce((a, b) => a + b, 0);
  console.log(`= ${((total * 1000) / mb).toFixed(1)} ms of Chromium CPU per MB (page set-up included)`);
} finally {
  chromium.kill();
  server.close();
  await rm(profile, { recursive: true, force: true });
}
