// The rollup workflow: per-minute min/mean/max of each numeric channel, computed from the raw table's new
// snapshots exactly once. Two consumers (engine channels, motion channels) read the backlog in parallel
// Workers, each through its own append_scan key, so each one's progress commits with the rows it writes;
// `report` sums what they did. Imported by the page (to run it) and by rollup.worker.ts (to serve it).
import * as ava from "avalanche-web";
import type * as A from "apache-arrow";
import { Telemetry } from "../namespace.js";

/** At most this many raw snapshots (1 s of samples each) per run and consumer. */
export const MAX_SNAPSHOTS = 600;
export const GROUPS = {
  engine: ["engine.rpm", "engine.temp", "oil.temp", "battery.voltage"],
  motion: ["speed", "altitude", "accel.x", "accel.y"],
} as const;

interface Rollup {
  channel: string;
  minute: Date;
  min: number;
  mean: number;
  max: number;
  count: number;
}

/** Folds the rows of `channels` into one Rollup per channel and minute. */
export function rollupByMinute(rows: A.Table, channels: readonly string[]): Rollup[] {
  const out = new Map<string, Rollup & { sum: number }>();
  const wanted = new Set(channels);
  const channel = rows.getChild("channel");
  const time = rows.getChild("timestamp");
  const value = rows.getChild("double");
  if (!channel || !time || !value) return [];
  for (let i = 0; i < rows.numRows; i++) {
    const name = channel.get(i) as string;
    const v = value.get(i) as number | null;
    if (!wanted.has(name) || v === null) continue;
    const t = time.get(i) as number | bigint; // ms number in arrow's reading of ns timestamps
    const ms = typeof t === "bigint" ? Number(t / 1_000_000n) : t;
    const minute = Math.floor(ms / 60_000) * 60_000;
    const key = `${name}@${minute}`;
    let r = out.get(key);
    if (!r) {
      r = { channel: name, minute: new Date(minute), min: v, mean: 0, max: v, count: 0, sum: 0 };
      out.set(key, r);
    }
    r.min = Math.min(r.min, v);
    r.max = Math.max(r.max, v);
    r.sum += v;
    r.count++;
  }
  return [...out.values()].map(({ sum, ...r }) => ({ ...r, mean: sum / r.count }));
}

function rollupStep(group: keyof typeof GROUPS) {
  return ava.step(
    `rollup_${group}`,
    async ({ raw, rollups, log }: { raw: A.Table; rollups: ava.Table<Rollup>; log: ava.Logger }) => {
      const rows = rollupByMinute(raw, GROUPS[group]);
      if (rows.length > 0) await rollups.append(rows);
      log.info(`${raw.numRows} raw points -> ${rows.length} minute rows`, { group });
      return { group, rawPoints: raw.numRows, rollupRows: rows.length };
    },
    {
      inject: {
        raw: ava.stream(Telemetry.tables.points, {
          mode: "append_scan",
          key: `rollup_${group}`,
          maxSnapshots: MAX_SNAPSHOTS,
        }),
        rollups: Telemetry.tables.rollups,
        log: ava.logger(),
      },
    },
  );
}

type Done = { group: string; rawPoints: number; rollupRows: number };
const report = ava.step("report", async (...groups: Done[]) => ({
  rawPoints: groups.reduce((n, g) => n + g.rawPoints, 0),
  rollupRows: groups.reduce((n, g) => n + g.rollupRows, 0),
}));

const rollupEngine = rollupStep("engine");
const rollupMotion = rollupStep("motion");
export const rollupFlow = ava.workflow({ name: "rollup" }, () => report(rollupEngine(), rollupMotion()));
