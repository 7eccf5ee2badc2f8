// Starts processes on behalf of a bench process, so that the bench itself never forks while it is timed.
// A fork write-protects every page of the forking process (copy on write), and the next write to each one
// faults, whether or not the child has exec'd: on the 2-core VM the benches run on, ~25 µs a page, i.e.
// ~24 ms of CPU for a 4 MB buffer. The live bench started a fresh server (spawned from the sender) before
// each timed run, so the sender's heap and its warm batch memory were all faulted in again inside the timed
// part (~900 faults a reused batch buffer, measured) — a cost no long-running sender pays.
// Protocol, one JSON object a line: in {ref, args} spawns `node ...args` (stdout piped back as {ref, out},
// its exit as {ref, exit}); in {ref, kill: true} kills it. Stdin closing (the bench exited) kills them all.
import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";

const children = new Map<number, ChildProcess>();
const reply = (msg: object) => process.stdout.write(`${JSON.stringify(msg)}\n`);
const killAll = () => {
  for (const child of children.values()) child.kill();
};
// The bench went away: its servers go too.
process.stdout.on("error", () => {
  killAll();
  process.exit(0);
});

for await (const line of createInterface({ input: process.stdin })) {
  const { ref, args, kill } = JSON.parse(line) as { ref: number; args?: string[]; kill?: boolean };
  if (kill) {
    children.get(ref)?.kill();
    continue;
  }
  const child = spawn(process.execPath, args ?? [], { stdio: ["ignore", "pipe", "inherit"] });
  children.set(ref, child);
  child.stdout!.on("data", (d) => reply({ ref, out: String(d) }));
  child.on("exit", (code) => {
    children.delete(ref);
    reply({ ref, exit: code });
  });
}
killAll();
