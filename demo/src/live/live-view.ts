// The "Live" tab: a live stream to the ingest endpoint served next to the app (demo/ingest-plugin.ts), with
// its outbox on browser storage. Every batch is in OPFS + IndexedDB before it is POSTed and leaves only once
// the server acknowledged it, so going offline (or reloading) loses nothing: the outbox grows, then drains.
// Shows the network as the stream sees it, the outbox, the stream's counters and the server's row count.
import * as ava from "avalanche-web";
import { everyIdle } from "../idle.js";
import { LIVE_CHANNELS, LiveFeed } from "./feed.js";

/** What GET /ingest answers (demo/ingest-plugin.ts). */
interface IngestCount {
  rows: number;
  snapshots: number;
}

const COUNTERS = [
  ["enqueued", "points enqueued"],
  ["pointsBuffered", "points in memory"],
  ["batchesInOutbox", "outbox batches"],
  ["bytesInOutbox", "outbox bytes"],
  ["batchesSent", "batches sent"],
  ["pointsSent", "points sent"],
  ["retries", "retries"],
  ["batchesDropped", "dropped"],
  ["received", "rows received by the server"],
] as const;
type Counter = (typeof COUNTERS)[number][0];

export class LiveView {
  readonly stream: ava.avro.LiveStream;
  readonly feed: LiveFeed;
  /** The server's table when this page opened, and when last reached. */
  serverAtStart: IngestCount | undefined;
  server: IngestCount | undefined;
  reachable = false;
  readonly #endpoint = new URL("ingest", document.baseURI);
  readonly #root: HTMLElement;
  readonly #cells = new Map<Counter, HTMLElement>();

  constructor(root: HTMLElement, storageName: string) {
    this.#root = root;
    this.stream = ava.avro.createLiveStream({
      url: this.#endpoint,
      // a storage of its own: the outbox's commits never wake the telemetry table's subscribers
      outbox: ava.browserStorage({ name: `${storageName}-outbox` }),
      name: "rig", // a reload resumes this stream: what its outbox holds is sent first
      maxDelayMs: 1_000, // one batch a second
      maxBackoffMs: 5_000, // the browser's online event retries at once anyway
    });
    this.feed = new LiveFeed(this.stream);
    root.innerHTML = `<p><button type="button" id="live-toggle">Start streaming</button>
      <span id="live-net" class="badge"></span>
      ${LIVE_CHANNELS.length} channels × ${this.feed.hz} Hz → <code>POST ${this.#endpoint.pathname}</code>
      (<code>ingestHandler</code> on a Node table, served next to this app)</p>
      <table class="live-counters"><tr>${COUNTERS.map(([, label]) => `<th>${label}</th>`).join("")}</tr>
      <tr>${COUNTERS.map(([k]) => `<td data-counter="${k}">0</td>`).join("")}</tr></table>
      <p id="live-check"></p>
      <ol id="live-log"></ol>`;
    for (const [k] of COUNTERS) this.#cells.set(k, root.querySelector(`[data-counter="${k}"]`)!);
    const button = root.querySelector<HTMLButtonElement>("#live-toggle")!;
    button.addEventListener("click", () => {
      if (this.feed.running) this.feed.stop();
      else this.feed.start();
      button.textContent = this.feed.running ? "Stop streaming" : "Start streaming";
    });
    for (const type of ["offline", "online", "retry", "dropped", "refused", "error"])
      this.stream.addEventListener(type, (e) => this.#log(type, (e as CustomEvent).detail));
    for (const type of ["online", "offline"])
      addEventListener(type, () => {
        this.#log(`browser ${type}`, undefined);
        this.#render();
      });
    everyIdle(250, () => this.#render());
    everyIdle(1_000, () => void this.poll());
    void this.poll();
  }

  /** Points received by the server since this page opened. */
  get received(): number | undefined {
    return this.server && this.serverAtStart && this.server.rows - this.serverAtStart.rows;
  }

  /** Reads the server's row count (while the tab is shown, or when asked). */
  async poll(force = false): Promise<void> {
    if (!force && !this.#root.classList.contains("active") && this.serverAtStart) return;
    try {
      const res = await fetch(this.#endpoint, { cache: "no-store" });
      if (!res.ok) throw new Error(`${res.status}`);
      this.server = (await res.json()) as IngestCount;
      this.serverAtStart ??= this.server;
      this.reachable = true;
    } catch {
      this.reachable = false;
    }
    this.#render();
  }

  #render(): void {
    const s = this.stream.status();
    const values: Record<Counter, number | undefined> = {
      ...s,
      enqueued: this.feed.enqueued,
      received: this.received,
    };
    for (const [k, cell] of this.#cells) {
      const v = values[k];
      cell.textContent = v === undefined ? "–" : k === "bytesInOutbox" ? kib(v) : v.toLocaleString();
    }
    const net = this.#root.querySelector<HTMLElement>("#live-net")!;
    net.textContent = s.online ? "online" : "offline: batches wait in the outbox";
    net.classList.toggle("offline", !s.online);
    net.dataset.state = s.online ? "online" : "offline";
    const check = this.#root.querySelector<HTMLElement>("#live-check")!;
    const pending = this.feed.enqueued - s.pointsSent;
    check.textContent =
      this.received === undefined || !this.reachable
        ? `server unreachable${this.received === undefined ? "" : ` (it had received ${this.received.toLocaleString()})`}`
        : pending > 0
          ? `${pending.toLocaleString()} points on their way (memory + outbox)`
          : this.received === s.pointsSent
            ? `sent ${s.pointsSent.toLocaleString()} == received ${this.received.toLocaleString()}`
            : `sent ${s.pointsSent.toLocaleString()}, received ${this.received.toLocaleString()}`;
  }

  #log(type: string, detail: unknown): void {
    const item = document.createElement("li");
    const error = (detail as { error?: Error } | undefined)?.error;
    item.textContent = `${new Date().toLocaleTimeString()} ${type}${error ? `: ${error.message}` : ""}`;
    const list = this.#root.querySelector("#live-log")!;
    list.prepend(item);
    while (list.children.length > 8) list.lastElementChild!.remove();
  }
}

function kib(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KiB`;
}
