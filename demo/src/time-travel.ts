// Time travel: a slider over the raw table's history (every snapshot, oldest first). At a past snapshot
// the charts show the window that ended when it was committed and SQL reads the table as it was then;
// "Latest" returns to the live table.
import type * as ava from "avalanche-web";

export class TimeTravel {
  readonly #slider: HTMLInputElement;
  readonly #label: HTMLElement;
  #history: ava.Snapshot[] = [];
  #pinned: ava.Snapshot | undefined;
  #loading: Promise<void> | undefined;

  constructor(
    root: HTMLElement,
    readonly table: ava.Table,
    readonly onChange: (snapshot: ava.Snapshot | undefined) => void,
  ) {
    root.innerHTML = `<label>Time travel <input id="tt-slider" type="range" min="0" max="0" value="0" step="1"></label>
      <button type="button" id="tt-latest">Latest</button> <span id="tt-label">latest</span>`;
    this.#slider = root.querySelector("#tt-slider")!;
    this.#label = root.querySelector("#tt-label")!;
    this.#slider.addEventListener("input", () => this.pick(Number(this.#slider.value)));
    root.querySelector("#tt-latest")!.addEventListener("click", () => this.latest());
  }

  /** The pinned snapshot, or undefined for the live table. */
  get snapshot(): ava.Snapshot | undefined {
    return this.#pinned;
  }

  /** Re-reads the history (after commits); the slider stays on a pinned snapshot, else on the newest. */
  reload(): Promise<void> {
    this.#loading ??= (async () => {
      try {
        this.#history = await this.table.history();
        this.#slider.max = String(Math.max(0, this.#history.length - 1));
        if (!this.#pinned) {
          this.#slider.value = this.#slider.max;
          this.#label.textContent = `latest of ${this.#history.length} snapshots`;
        }
      } finally {
        this.#loading = undefined;
      }
    })();
    return this.#loading;
  }

  pick(index: number): void {
    const snap = this.#history[index];
    if (!snap || index === this.#history.length - 1) {
      this.latest();
      return;
    }
    this.#pinned = snap;
    this.#slider.value = String(index);
    this.#label.textContent = `snapshot #${snap.sequenceNumber} of ${this.#history.length} · ${new Date(snap.timestampMs).toLocaleTimeString()} · ${snap.totalRows.toLocaleString()} rows`;
    this.onChange(snap);
  }

  latest(): void {
    this.#pinned = undefined;
    this.#slider.value = this.#slider.max;
    this.#label.textContent = `latest of ${this.#history.length} snapshots`;
    this.onChange(undefined);
  }
}
