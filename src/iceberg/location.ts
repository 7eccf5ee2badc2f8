// Iceberg metadata names every file by an absolute URI, so other engines must be told where the storage's
// root is for them: `location` (s3://bucket/prefix, https://host/path), or, for a store whose files are plain
// local files (Node), the file:// URI of each file.
import { AvaError } from "../errors.js";
import type { FileStore } from "../storage/types.js";
import { getOrCreate } from "../util/get-or-create.js";

export interface IcebergOptions {
  /**
   * The URI other engines read the storage's root at, e.g. "s3://bucket/prefix" or "http://host/root".
   * Default: file:// URIs of a Node storage's files; any other storage must give one.
   */
  location?: string;
  /**
   * Per-commit metadata only (TableOptions.iceberg). Default true: the metadata is written in the
   * background, so a commit returns as soon as the catalog has it; it follows within 50 ms to 1 s (25 times
   * what writing the last version took, see lanes.ts), and the
   * commits made meanwhile share one metadata version (each still its own Iceberg snapshot). `await
   * exportIceberg()` writes it at once. false: each commit returns once its metadata is written — a
   * metadata version per commit, at about twice the cost of a small commit without fsync (bench iceberg).
   */
  background?: boolean;
}

/** Store path -> the URI written into the metadata. */
export type Locator = (path: string) => string;

export function locator(files: FileStore, { location }: IcebergOptions, table: string): Locator {
  if (location !== undefined) {
    if (typeof location !== "string" || !/^[a-z][a-z0-9+.-]*:\/\//i.test(location))
      throw new AvaError(
        "INVALID_ARGUMENT",
        `Iceberg metadata of ${table}: location must be a URI such as s3://bucket/prefix, got ${JSON.stringify(location)}`,
      );
    const root = location.replace(/\/+$/, "");
    return (path) => `${root}/${path}`;
  }
  const local = files.localPath?.bind(files);
  if (!local)
    throw new AvaError(
      "INVALID_ARGUMENT",
      `Iceberg metadata of ${table}: this storage's files are not local files, so give the URI other engines read its root at ({ location: "s3://bucket/prefix" })`,
    );
  const folders = folderUris(files);
  return (path) => {
    const cut = path.lastIndexOf("/");
    if (cut <= 0) return fileUri(local(path));
    const uri = getOrCreate(folders, path.slice(0, cut), (folder) => fileUri(local(folder)));
    return `${uri}/${encodePath(path.slice(cut + 1))}`;
  };
}

/**
 * A file's URI is its folder's and its encoded name, and a folder's is made once per store: every commit
 * names a few files in the same two or three folders, and resolving each path against the root is not free.
 */
const folderUrisByStore = new WeakMap<FileStore, Map<string, string>>();

function folderUris(files: FileStore): Map<string, string> {
  return getOrCreate(folderUrisByStore, files, () => new Map<string, string>());
}

function encodePath(path: string): string {
  return encodeURI(path).replace(/[?#]/g, encodeURIComponent);
}

function fileUri(absolute: string): string {
  const slashed = absolute.replace(/\\/g, "/");
  const encoded = encodePath(slashed);
  return slashed.startsWith("/") ? `file://${encoded}` : `file:///${encoded}`;
}
