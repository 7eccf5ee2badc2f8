// Iceberg metadata names every file by an absolute URI, so other engines must be told where the storage's
// root is for them: `location` (s3://bucket/prefix, https://host/path), or, for a store whose files are plain
// local files (Node), the file:// URI of each file.
import { AvaError } from "../errors.js";
import type { FileStore } from "../storage/types.js";

export interface IcebergOptions {
  /**
   * The URI other engines read the storage's root at, e.g. "s3://bucket/prefix" or "http://host/root".
   * Default: file:// URIs of a Node storage's files; any other storage must give one.
   */
  location?: string;
  /**
   * Per-commit metadata only (TableOptions.iceberg): write it in the background, so a commit returns as soon
   * as the catalog has it. The metadata follows within about 20 ms, and commits made meanwhile share one
   * metadata version (each still gets its own Iceberg snapshot). `await exportIceberg()` writes it at once. Default false: each commit returns once its metadata is written.
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
  return (path) => fileUri(local(path));
}

function fileUri(absolute: string): string {
  const slashed = absolute.replace(/\\/g, "/");
  const encoded = encodeURI(slashed).replace(/[?#]/g, encodeURIComponent);
  return slashed.startsWith("/") ? `file://${encoded}` : `file:///${encoded}`;
}
