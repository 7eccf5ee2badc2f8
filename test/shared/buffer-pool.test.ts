// BufferPool: the smallest free buffer that fits, the largest for a scratch that grows, and never more
// than its bound kept free.
import { expect, it, vi } from "vitest";
import { BufferPool } from "../../src/util/buffer-pool.js";

it("hands out the smallest free buffer that fits, or a new one, and keeps at most maxBytes free", () => {
  const pool = new BufferPool(100);
  const a = pool.take(40);
  const b = pool.take(20);
  expect([a.length, b.length]).toEqual([40, 20]);
  pool.giveBack(a);
  pool.giveBack(b);
  expect(pool.take(10)).toBe(b); // the smallest that fits
  expect(pool.take(30)).toBe(a);
  expect(pool.take(30)).not.toBe(a); // nothing free: a new one
  pool.giveBack(new Uint8Array(70));
  pool.giveBack(new Uint8Array(40)); // 110 > 100: not kept
  expect(pool.takeLargest().length).toBe(70);
  expect(pool.takeLargest().length).toBe(0); // empty pool: an empty buffer, for a scratch to grow
  pool.giveBack(a);
  pool.giveBack(b);
  expect(pool.takeLargest()).toBe(a);
});

it("makes a new buffer of the size asked for fresh, and lets go of its free buffers once idle for idleMs", () => {
  vi.useFakeTimers();
  try {
    const pool = new BufferPool(1000, 50);
    const a = pool.take(10, 30);
    expect(a.length).toBe(30); // room to grow
    expect(pool.take(40, 20).length).toBe(40); // never smaller than asked
    pool.giveBack(a);
    vi.advanceTimersByTime(40);
    expect(pool.take(5)).toBe(a); // used again: the idle clock restarts
    pool.giveBack(a);
    vi.advanceTimersByTime(40);
    expect(pool.freeBytes).toBe(30);
    vi.advanceTimersByTime(20);
    expect(pool.freeBytes).toBe(0); // 50 ms unused
    expect(pool.take(5)).not.toBe(a);
    const kept = new BufferPool(1000);
    kept.giveBack(a);
    vi.advanceTimersByTime(60_000);
    expect(kept.freeBytes).toBe(30); // no idleMs: kept for good
  } finally {
    vi.useRealTimers();
  }
});
