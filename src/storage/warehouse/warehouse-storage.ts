// `warehouseStorage({ files, catalog })`: data files in S3-compatible object storage, the catalog in
// Postgres — one storage that many processes on many machines share. Its descriptor is plain data, so a
// worker thread reopens it (with its own connections) from the descriptor alone.
import { AvaError } from "../../errors.js";
import type { AutoMaintenanceOptions } from "../../table/maintenance-runner.js";
import type { Storage } from "../types.js";
import { type PostgresCatalog, type PostgresLocation, postgresCatalog } from "./postgres-catalog.js";
import { type S3FileStore, type S3Location, s3FileStore } from "./s3-file-store.js";

/** The descriptor of a warehouse storage: where its files and its catalog live. */
export interface WarehouseDescriptor {
  kind: "warehouse";
  s3: S3Location;
  postgres: PostgresLocation;
}

export interface WarehouseStorageOptions {
  /** `s3FileStore({ bucket, prefix, client })`. */
  files: S3FileStore;
  /** `postgresCatalog({ connectionString, schema })`. */
  catalog: PostgresCatalog;
  /** The clock of snapshots, retention and grace periods (default Date.now); tests fast-forward it. */
  now?: () => number;
  /** `{ auto: true, ... }`: background maintenance of every table (see AutoMaintenanceOptions). */
  maintenance?: AutoMaintenanceOptions;
}

export function warehouseStorage(options: WarehouseStorageOptions): Storage {
  const { files, catalog, now, maintenance } = options ?? ({} as Partial<WarehouseStorageOptions>);
  if (!files?.location || !catalog?.location)
    throw new AvaError(
      "INVALID_ARGUMENT",
      "warehouseStorage({ files, catalog }) needs files from s3FileStore() and a catalog from postgresCatalog()",
    );
  return {
    descriptor: { kind: "warehouse", s3: files.location, postgres: catalog.location },
    files,
    catalog,
    ...(now ? { now } : {}),
    ...(maintenance ? { maintenance } : {}),
  };
}

/** Reopens a warehouse storage from its descriptor (a worker thread does this). */
export function reopenWarehouse(descriptor: WarehouseDescriptor): Storage {
  return warehouseStorage({
    files: s3FileStore({
      bucket: descriptor.s3.bucket,
      prefix: descriptor.s3.prefix,
      ...(descriptor.s3.client ? { client: descriptor.s3.client } : {}),
    }),
    catalog: postgresCatalog(descriptor.postgres),
  });
}
