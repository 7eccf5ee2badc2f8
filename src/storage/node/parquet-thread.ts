// Node storage's ParquetEncoder: parquet-wasm on a worker thread of its own, so that the Parquet writes of
// the background flush of inlined appends and of compaction (zstd over a thousand rows and more, several
// milliseconds each) leave the appender's thread free. One thread per process, started on first use, and
// holding the process open only while it has work. If it cannot start or dies, that write and every later
// one is done on the calling thread, as without it: the bytes are the same either way.
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import { encodeIpcHere, PQ_CODECS, type ParquetEncoder, type WriterSpec } from "../../parquet/parquet.js";

/**
 * The thread's code (CommonJS, as parquet-wasm's Node build is): it applies a WriterSpec as
 * parquet.ts's writerProperties does, and answers each request with the file's bytes or the error's text.
 */
const THREAD = `
const { parentPort, workerData } = require("node:worker_threads");
const pq = require(workerData.parquetWasm);
parentPort.on("message", ({ id, ipc, spec }) => {
  try {
    let builder = new pq.WriterPropertiesBuilder()
      .setCompression(pq.Compression[workerData.codecs[spec.compression]])
      .setCreatedBy(spec.createdBy)
      .setDictionaryEnabled(false);
    for (const name of spec.dictionary) builder = builder.setColumnDictionaryEnabled(name, true);
    for (const name of spec.delta) builder = builder.setColumnEncoding(name, pq.Encoding.DELTA_BINARY_PACKED);
    const bytes = pq.writeParquet(pq.Table.fromIPCStream(ipc), builder.build());
    parentPort.postMessage({ id, bytes }, [bytes.buffer]);
  } catch (err) {
    parentPort.postMessage({ id, error: String((err && err.message) || err) });
  }
});
`;

interface Pending {
  resolve: (bytes: Uint8Array) => void;
  reject: (err: Error) => void;
}

/** The thread's answer to request `id`: the file, or why parquet-wasm refused the rows. */
type Answer = { id: number; bytes?: Uint8Array; error?: string };

let thread: { worker: Worker; pending: Map<number, Pending> } | undefined;
/** Set once the thread failed to start or died: writes stay on the calling thread from then on. */
let broken = false;
let nextId = 0;
let answered = 0;

/** How many files the thread has written (in this process): to tell that writes really leave the thread. */
export function parquetThreadWrites(): number {
  return answered;
}

function start(): NonNullable<typeof thread> {
  const parquetWasm = createRequire(import.meta.url).resolve("parquet-wasm");
  const worker = new Worker(THREAD, { eval: true, workerData: { parquetWasm, codecs: PQ_CODECS } });
  const pending = new Map<number, Pending>();
  const started = { worker, pending };
  worker.unref();
  worker.on("message", ({ id, bytes, error }: Answer) => {
    const p = pending.get(id);
    if (!p) return;
    pending.delete(id);
    if (pending.size === 0) worker.unref();
    if (bytes) {
      answered++;
      p.resolve(bytes);
    } else p.reject(new Error(error));
  });
  const die = (err: Error) => {
    broken = true;
    if (thread === started) thread = undefined;
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };
  worker.on("error", die);
  worker.on("exit", (code) => die(new Error(`the Parquet thread exited (code ${code})`)));
  return started;
}

function onThread(ipc: Uint8Array, spec: WriterSpec): Promise<Uint8Array> {
  try {
    thread ??= start();
  } catch (err) {
    broken = true;
    throw err;
  }
  const { worker, pending } = thread;
  const id = nextId++;
  if (pending.size === 0) worker.ref(); // a write under way keeps the process open, as one on this thread would
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    // A copy of exactly the stream, handed over: `ipc` stays the caller's, and a structured clone (a
    // serialization of the bytes, then another copy on the thread) cost more than the copy.
    const own = ipc.slice();
    worker.postMessage({ id, ipc: own, spec }, [own.buffer]);
  });
}

/**
 * Writes on the Parquet thread; on this one if that thread is unavailable, or if it refused the rows
 * (this thread then gives the error parquet-wasm gives, as a write here would have).
 */
export const threadParquetEncoder: ParquetEncoder = async (ipc, spec) => {
  if (!broken) {
    try {
      return await onThread(ipc, spec);
    } catch {
      // below: the same write here, which succeeds or throws parquet-wasm's own error
    }
  }
  return encodeIpcHere(ipc, spec);
};
