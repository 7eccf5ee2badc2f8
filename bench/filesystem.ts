// Which filesystem a bench folder is on, for its table's title: file creation costs differ tenfold between
// filesystems that look alike. ext4 without a journal (this VM's root filesystem) skips, on every file
// creation, each inode freed in the last 60 s (300 s while its inode table block is dirty), with a buffer
// cache lookup per inode (linux fs/ext4/ialloc.c: recently_deleted() in find_inode_bit()), so on a shared
// machine whose other jobs delete files, a creation cost 200–400 µs of system time there against 20–30 µs on
// a journaled ext4. Benches make their folders under os.tmpdir(): `TMPDIR=/some/folder npm run bench` moves
// them.
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { basename } from "node:path";

interface Mount {
  point: string;
  type: string;
  source: string;
}

/** /proc/self/mountinfo's mounts: field 5 is the mount point, and after " - " come the type and the source. */
function mounts(): Mount[] {
  return readFileSync("/proc/self/mountinfo", "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const [before, after = ""] = line.split(" - ");
      const point = (before ?? "").split(" ")[4] ?? "";
      const [type = "", source = ""] = after.split(" ");
      // Spaces and other odd bytes in a mount point are written as octal escapes.
      return {
        point: point.replace(/\\([0-7]{3})/g, (_, o) => String.fromCharCode(parseInt(o, 8))),
        type,
        source,
      };
    });
}

/** e.g. "ext4 without a journal (/dev/vda)"; "an unknown filesystem" where /proc is not there to tell. */
export function describeFilesystem(path: string): string {
  let mount: Mount | undefined;
  try {
    const real = realpathSync(path);
    for (const m of mounts()) {
      const within = real === m.point || real.startsWith(m.point === "/" ? "/" : `${m.point}/`);
      if (within && m.point.length >= (mount?.point.length ?? -1)) mount = m;
    }
  } catch {
    return "an unknown filesystem";
  }
  if (!mount) return "an unknown filesystem";
  if (mount.type !== "ext4") return `${mount.type} (${mount.source})`;
  // A journaled ext4 has a jbd2 journal named after its device, e.g. /proc/fs/jbd2/loop0-8.
  const journaled = existsSync(`/proc/fs/jbd2/${basename(mount.source)}-8`);
  return `ext4 ${journaled ? "with" : "without"} a journal (${mount.source})`;
}
