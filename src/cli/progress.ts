// A run's progress as the command line shows it: a redrawn bar on a terminal, one plain line per event
// otherwise (logs, pipes, CI), so that scripts can read what happened.
import type { RunEvent } from "../workflow/run-handle.js";
import type { Out } from "./output.js";

const WIDTH = 24;

export function progressPrinter(
  out: Out,
  tty: boolean,
  write: (text: string) => void,
): (e: RunEvent) => void {
  const running = new Set<string>();
  let done = 0;
  let total = 0;
  const draw = () => {
    const filled = total === 0 ? 0 : Math.round((done / total) * WIDTH);
    const now = [...running].join(", ");
    write(
      `\r\x1b[2K[${"#".repeat(filled)}${"-".repeat(WIDTH - filled)}] ${done}/${total}${now ? `  ${now}` : ""}`,
    );
  };
  return (e) => {
    if (e.type === "log") {
      if (tty) write("\r\x1b[2K");
      out(`  ${e.slug}: [${e.line.level}] ${e.line.message}`);
      if (tty) draw();
      return;
    }
    total = e.total;
    if (e.type === "node-started") running.add(e.slug);
    if (e.type === "node-finished") {
      running.delete(e.slug);
      done = e.done;
    }
    if (tty) {
      if (e.type === "run-finished") write("\r\x1b[2K");
      else draw();
      return;
    }
    if (e.type === "node-started") out(`started ${e.slug}`);
    else if (e.type === "node-finished") out(`${e.status} ${e.slug} (${e.done}/${e.total})`);
  };
}
