// Arrow <-> Parquet through parquet-wasm. The wasm is loaded on first use: in Node the package's `node`
// export loads it synchronously; elsewhere the ESM build's init() fetches the .wasm next to it (bundlers
// rewrite that URL), which also works inside a module Worker.
import * as A from "apache-arrow";
import { AvaError } from "../errors.js";

type ParquetWasm = typeof import("parquet-wasm");
let loading: Promise<ParquetWasm> | undefined;

export function loadParquetWasm(): Promise<ParquetWasm> {
  loading ??= (async () => {
    const mod = await import("parquet-wasm");
    const init = (mod as { default?: unknown }).default;
    if (typeof init === "function") await (init as () => Promise<unknown>)();
    return mod;
  })();
  return loading;
}

export type ParquetCompression = "uncompressed" | "snappy" | "gzip" | "brotli" | "lz4_raw" | "zstd";

export interface EncodeOptions {
  /** Column compression; LZO is never offered (it crashes parquet-wasm 0.8). */
  compression?: ParquetCompression;
}

export async function encodeParquet(
  table: A.Table,
  { compression = "zstd" }: EncodeOptions = {},
): Promise<Uint8Array> {
  const pq = await loadParquetWasm();
  const codec = {
    uncompressed: pq.Compression.UNCOMPRESSED,
    snappy: pq.Compression.SNAPPY,
    gzip: pq.Compression.GZIP,
    brotli: pq.Compression.BROTLI,
    lz4_raw: pq.Compression.LZ4_RAW,
    zstd: pq.Compression.ZSTD,
  }[compression];
  const props = new pq.WriterPropertiesBuilder().setCompression(codec).setCreatedBy("avalanche-web").build();
  return pq.writeParquet(pq.Table.fromIPCStream(A.tableToIPC(table, "stream")), props);
}

export interface DecodeOptions {
  columns?: readonly string[];
  /** Rows per decoded record batch; parquet-wasm's default (1024) makes many small batches. */
  batchSize?: number;
  /** Names the file in errors. */
  path?: string;
}

export async function decodeParquet(
  bytes: Uint8Array,
  { columns, path = "(bytes)" }: DecodeOptions = {},
): Promise<A.Table> {
  const pq = await loadParquetWasm();
  try {
    const wasmTable = pq.readParquet(bytes, columns ? { columns: [...columns] } : undefined);
    return A.tableFromIPC(wasmTable.intoIPCStream());
  } catch (cause) {
    throw new AvaError("DATA_CORRUPT", `data file ${path} is not readable Parquet: ${String(cause)}`, {
      cause,
    });
  }
}
