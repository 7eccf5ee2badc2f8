// The dashboard's data: one raw table of telemetry points (the Avro stream's long layout: a row per point,
// one value column per type) and the per-minute rollups the workflow writes. Shared by the page and Workers.
import * as ava from "avalanche-web";
import { z } from "zod";

export const Telemetry = ava.defineNamespace({
  name: "telemetry",
  tables: {
    points: ava.table({ schema: ava.avro.avroStreamArrowSchema }),
    rollups: ava.table({
      schema: z.object({
        channel: z.string(),
        minute: z.date(),
        min: z.number(),
        mean: z.number(),
        max: z.number(),
        count: z.int(),
      }),
    }),
  },
});

/** The browser storage's name: `?storage=` picks another (tests use a fresh one each). */
export function storageName(search = globalThis.location?.search ?? ""): string {
  return new URLSearchParams(search).get("storage") ?? "telemetry-demo";
}

/** The same storage from any context of the origin: the page, the simulator, the chart and workflow Workers. */
export function openStorage(name: string): ava.BrowserStorage {
  return ava.browserStorage({ name });
}

/** The opened namespace: `ns.points`, `ns.rollups`, `ns.storage`. */
export type TelemetryNamespace = Awaited<ReturnType<typeof Telemetry.open>>;
