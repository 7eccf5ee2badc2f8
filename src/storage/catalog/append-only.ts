// An immutable list whose `append` is O(1): successive versions share one backing array, each seeing its
// first `length` items. A table gains a snapshot (and usually a live file) per commit; copying the whole
// list each time made a table's n-th commit cost O(n) and a long-lived table's history O(n²).

/** The backing array, and whether it was handed out (whoever holds it must not see it grow). */
interface Backing<T> {
  items: T[];
  exposed: boolean;
}

export class AppendOnly<T> {
  readonly #backing: Backing<T>;
  readonly length: number;

  private constructor(backing: Backing<T>, length: number) {
    this.#backing = backing;
    this.length = length;
  }

  /** A list of `items` (taken over: the caller must not change the array afterwards). */
  static of<T>(items: T[]): AppendOnly<T> {
    return new AppendOnly({ items, exposed: false }, items.length);
  }

  at(index: number): T | undefined {
    return index >= 0 && index < this.length ? this.#backing.items[index] : undefined;
  }

  /**
   * This list and `more` after it. In place when this is the newest version and its array was never
   * handed out; otherwise (an older version appended to again, or an array someone holds) it copies.
   */
  append(...more: T[]): AppendOnly<T> {
    const b = this.#backing;
    if (b.items.length === this.length && !b.exposed) {
      b.items.push(...more);
      return new AppendOnly(b, this.length + more.length);
    }
    return AppendOnly.of([...b.items.slice(0, this.length), ...more]);
  }

  /** The items as an array that never changes afterwards (the backing one, which later appends then copy). */
  toArray(): readonly T[] {
    const b = this.#backing;
    if (b.items.length !== this.length) return b.items.slice(0, this.length);
    b.exposed = true;
    return b.items;
  }

  slice(start: number, end = this.length): T[] {
    return this.#backing.items.slice(start, Math.min(end, this.length));
  }
}
