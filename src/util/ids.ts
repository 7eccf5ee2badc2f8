// Identifiers: ULIDs (time-sortable, 26 chars of Crockford base32) for runs, snapshots and data files.
// Written here rather than pulled in: twenty lines on top of the platform's crypto.getRandomValues.

const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/**
 * Random bytes drawn 4 KiB at a time: getRandomValues costs ~20 µs a call in Node whatever its size, and a
 * small commit mints a ULID or two.
 */
const pool = new Uint8Array(4096);
let poolAt = pool.length;

function randomBytes16(): Uint8Array {
  if (poolAt + 16 > pool.length) {
    crypto.getRandomValues(pool);
    poolAt = 0;
  }
  poolAt += 16;
  return pool.subarray(poolAt - 16, poolAt);
}

export function ulid(timeMs: number = Date.now()): string {
  let time = "";
  let t = Math.floor(timeMs);
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[t % 32]! + time;
    t = Math.floor(t / 32);
  }
  const random = randomBytes16();
  let rest = "";
  for (const byte of random) rest += ALPHABET[byte % 32]!;
  return time + rest;
}

/** Read once: Node's performance.timeOrigin is a getter that costs ~20 µs a call, and every append asks. */
const timeOrigin = performance.timeOrigin;

/** Microseconds since the epoch, as precise as the platform clock allows. */
export function nowMicros(): bigint {
  const ms = timeOrigin + performance.now();
  return BigInt(Math.floor(ms * 1000));
}

/** The time a ULID was minted (ms), or undefined for a string that is not a ULID. */
export function ulidTimeMs(id: string): number | undefined {
  if (typeof id !== "string" || id.length !== 26) return undefined;
  let t = 0;
  for (const c of id.slice(0, 10)) {
    const v = ALPHABET.indexOf(c);
    if (v < 0) return undefined;
    t = t * 32 + v;
  }
  return t;
}
