// How long the page's own chart work takes: the last `size` durations of one kind of work (the live tail's
// per-frame scroll, a redraw with new data), each timed until uPlot's redraw — which it runs in a microtask
// after setScale/setData — has finished. Read by the status line and by `npm run bench -- demo`.
export class FrameStats {
  readonly #ms: Float64Array;
  #count = 0;

  constructor(readonly size = 600) {
    this.#ms = new Float64Array(size);
  }

  /** Times `work` and the microtasks it queued (uPlot's commit) as one duration. */
  time(work: () => void): void {
    const t0 = performance.now();
    work();
    queueMicrotask(() => this.add(performance.now() - t0));
  }

  add(ms: number): void {
    this.#ms[this.#count++ % this.size] = ms;
  }

  reset(): void {
    this.#count = 0;
  }

  /** Median and 95th percentile over the kept durations, in ms. */
  summary(): { count: number; median: number; p95: number } {
    const kept = Array.from(this.#ms.subarray(0, Math.min(this.#count, this.size))).sort((a, b) => a - b);
    const at = (q: number) => kept[Math.min(kept.length - 1, Math.floor(q * kept.length))] ?? 0;
    return { count: this.#count, median: at(0.5), p95: at(0.95) };
  }
}
