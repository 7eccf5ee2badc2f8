// Noticing other processes' commits to a Node catalog: fs.watch on the log folder (a new entry is a new
// name there), plus a poll, because fs.watch misses events on some filesystems (network mounts, some
// containers) and may not be available at all. Neither keeps the process alive.
import { type FSWatcher, watch } from "node:fs";

export interface WatchOptions {
  /** The folder whose new files signal a commit. */
  folder: string;
  /** Resolves once the folder exists. */
  ready: Promise<unknown>;
  /** How often to look anyway, in ms. */
  pollMs: number;
}

export function watchFolder({ folder, ready, pollMs }: WatchOptions, onChange: () => void): () => void {
  let closed = false;
  let watcher: FSWatcher | undefined;
  ready.then(
    () => {
      if (closed) return;
      try {
        watcher = watch(folder, { persistent: false }, () => onChange());
        watcher.on("error", () => {
          watcher?.close(); // the poll carries on alone
        });
      } catch {
        // no watching here (e.g. out of inotify watches): the poll carries on alone
      }
    },
    () => {},
  );
  const timer = setInterval(onChange, pollMs);
  timer.unref();
  return () => {
    closed = true;
    watcher?.close();
    clearInterval(timer);
  };
}
