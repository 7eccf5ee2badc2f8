// What the demo page exposes as `window.demo` for its test, typed from the library's own types (the demo is
// an app of its own, type-checked in demo/, so its modules are not imported here).
import type * as A from "apache-arrow";
import type { LiveStream } from "../../src/avro.js";
import type { Snapshot, Table } from "../../src/index.js";

export interface DemoHandle {
  ns: { points: Table; rollups: Table };
  board: {
    last?: { x: number[]; points: number };
    view: { live: boolean; t0: number; t1: number; snapshotId?: string };
    panels: {
      spec: { series: unknown[] };
      plot: { data: (number | null | undefined)[][]; ctx: CanvasRenderingContext2D };
    }[];
  };
  timeTravel: { reload(): Promise<void>; snapshot?: Snapshot };
  sql: { last?: A.Table; run(sql: string): Promise<A.Table | undefined> };
  avro: { lastExport?: { name: string; bytes: number; points: number } };
  runs: { lastRun?: { runId: string; status: string; value?: unknown } };
  live: {
    stream: LiveStream;
    feed: { enqueued: number; running: boolean };
    received: number | undefined;
    poll(force?: boolean): Promise<void>;
  };
}

declare global {
  interface Window {
    demo: DemoHandle;
  }
}
