// Joining byte chunks, which files, blocks and sinks all do; and a buffer reused for bytes that are
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
 * One buffer handed out again and again (grown when asked for more): for data that is done with before
 * the next take, such as a decompressed block once its records are decoded. Reusing memory that is
 * already paged in is much cheaper than touching fresh memory for every block.
 */
export class ScratchBytes {
  #buf = new Uint8Array(0);

  /** `n` bytes, overwriting what the previous take handed out. */
  take(n: number): Uint8Array {
    // Doubling, so that sizes creeping up (IPC slices, blocks) do not re-allocate every time.
    if (n > this.#buf.length) this.#buf = new Uint8Array(Math.max(n, this.#buf.length * 2));
    return this.#buf.subarray(0, n);
  }
}
