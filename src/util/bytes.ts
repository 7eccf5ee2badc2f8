// Joining byte chunks, which files, blocks and sinks all do; reading a stream up to a limit; and a buffer reused for bytes that are
// dropped before the next are needed.
export function concatBytes(parts: readonly ArrayLike<number>[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * A stream's bytes joined, or `undefined` as soon as they pass `limit` — the stream is then cancelled, so a
 * source that never ends (or lies about its length) costs at most `limit` bytes of memory.
 */
export async function readAtMost(
  stream: ReadableStream<Uint8Array>,
  limit: number,
): Promise<Uint8Array | undefined> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > limit) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  return chunks.length === 1 ? chunks[0]! : concatBytes(chunks);
}

/**
 * One buffer handed out again and again (grown when asked for more): for data that is done with before
 * the next take, such as a decompressed block once its records are decoded. Reusing memory that is
 * already paged in is much cheaper than touching fresh memory for every block.
 */
export class ScratchBytes {
  #buf: Uint8Array;

  /** Starting from `buf` (one from a BufferPool, say). */
  constructor(buf: Uint8Array = new Uint8Array(0)) {
    this.#buf = buf;
  }

  /** The whole buffer as it is now (it may have grown since): to give back once done with. */
  get buffer(): Uint8Array {
    return this.#buf;
  }

  get capacity(): number {
    return this.#buf.length;
  }

  /** `n` bytes, overwriting what the previous take handed out. */
  take(n: number): Uint8Array {
    // Doubling, so that sizes creeping up (IPC slices, blocks) do not re-allocate every time.
    if (n > this.#buf.length) this.#buf = new Uint8Array(Math.max(n, this.#buf.length * 2));
    return this.#buf.subarray(0, n);
  }
}
