// Min/max per pixel (Foxglove's and most plotting tools' approach): a window of any length becomes at most
// two points per pixel column and series — the lowest and the highest, in the order they happened — so a
// line drawn through them has the same envelope as the raw data, at a cost bounded by the chart's width.

/** One plotted line: a channel, or one element of an array channel, or a string channel's level. */
export interface SeriesSpec {
  key: string;
  channel: string;
  column: "double" | "long" | "string" | "double_array";
  /** double_array: the element plotted. */
  element?: number;
  /** string: the values in plotting order (a value's index is its height). */
  levels?: readonly string[];
}

export interface Downsampled {
  /** Seconds since the epoch (uPlot's time unit), ascending. */
  x: number[];
  /** Aligned with x, one array per series; null where a series has no point. */
  ys: (number | null)[][];
  /** Raw points read. */
  points: number;
}

/** Accumulates points into `width` buckets over [t0, t1) ms, per series. */
export class MinMaxBuckets {
  readonly #t0: number;
  readonly #bucketMs: number;
  readonly #width: number;
  readonly #min: Float64Array[];
  readonly #max: Float64Array[];
  readonly #minAt: Float64Array[];
  readonly #maxAt: Float64Array[];
  points = 0;

  constructor(t0: number, t1: number, width: number, series: number) {
    this.#t0 = t0;
    this.#width = Math.max(1, Math.floor(width));
    this.#bucketMs = Math.max(1e-9, (t1 - t0) / this.#width);
    const make = (fill: number) =>
      Array.from({ length: series }, () => new Float64Array(this.#width).fill(fill));
    this.#min = make(Number.POSITIVE_INFINITY);
    this.#max = make(Number.NEGATIVE_INFINITY);
    this.#minAt = make(0);
    this.#maxAt = make(0);
  }

  /** Adds one point (ignored outside the window). */
  add(series: number, ms: number, value: number): void {
    const b = Math.floor((ms - this.#t0) / this.#bucketMs);
    if (b < 0 || b >= this.#width || Number.isNaN(value)) return;
    this.points++;
    const min = this.#min[series]!;
    const max = this.#max[series]!;
    if (value < min[b]!) {
      min[b] = value;
      this.#minAt[series]![b] = ms;
    }
    if (value > max[b]!) {
      max[b] = value;
      this.#maxAt[series]![b] = ms;
    }
  }

  /** Two x values per bucket that holds any point (its start and middle), every series aligned on them. */
  result(): Downsampled {
    const x: number[] = [];
    const ys: (number | null)[][] = this.#min.map(() => []);
    for (let b = 0; b < this.#width; b++) {
      if (!this.#min.some((m) => m[b]! !== Number.POSITIVE_INFINITY)) continue;
      const start = this.#t0 + b * this.#bucketMs;
      x.push(start / 1000, (start + this.#bucketMs / 2) / 1000);
      for (let s = 0; s < ys.length; s++) {
        const lo = this.#min[s]![b]!;
        if (lo === Number.POSITIVE_INFINITY) {
          ys[s]!.push(null, null);
          continue;
        }
        const hi = this.#max[s]![b]!;
        // first what came first, so a spike's shape survives
        if (this.#minAt[s]![b]! <= this.#maxAt[s]![b]!) ys[s]!.push(lo, hi);
        else ys[s]!.push(hi, lo);
      }
    }
    return { x, ys, points: this.points };
  }
}
