// The Avro bench page: write and read 10M double points (1,000 a record, 100 channels) with each codec on
// the main thread of Chromium, then ingest the null-codec file into a browserStorage table (OPFS).
import * as ava from "../../src/index.js";
import { ulid } from "../../src/util/ids.js";
import { avroRecords, POINTS, RECORDS } from "../avro-data.js";
import { avscStreamType } from "./avsc-peer.js";
import { report, timed } from "./report.js";

await report(async () => {
  const records = avroRecords();
  const timings: Record<string, number[]> = {};
  for (const codec of ava.avro.CODECS) {
    // one untimed pass on a tenth of the points, so that the medians are of JIT-warm code
    const warm = await ava.avro.encodeAvroStream(records.slice(0, RECORDS / 10), { codec });
    for await (const _ of (await ava.avro.openAvroStream(warm)).records());
    let bytes: Uint8Array = new Uint8Array(0);
    timings[`write_${codec}`] = await timed(3, async () => {
      bytes = await ava.avro.encodeAvroStream(records, { codec, recordsPerBlock: 250 });
    });
    timings[`read_${codec}`] = await timed(3, async () => {
      let n = 0;
      for await (const r of (await ava.avro.openAvroStream(bytes)).records()) n += r.timestamps.length;
      if (n !== POINTS) throw new Error("read lost points");
    });
    if (codec === "null") {
      // avsc beside it: the same records, one at a time through its record codec.
      const type = await avscStreamType(ava.avro.AVRO_STREAM_SCHEMA);
      const peerRecords = records.map((r) => ({
        channel: r.channel,
        timestamps: Array.from(r.timestamps),
        values: Array.from(r.values.values as Float64Array, (v) => ({ double: v })),
        tags: r.tags,
      }));
      let encoded: Uint8Array[] = [];
      timings.avsc_write = await timed(1, async () => {
        encoded = peerRecords.map((r) => type.toBuffer(r));
      });
      timings.avsc_read = await timed(1, async () => {
        let n = 0;
        for (const b of encoded) n += type.fromBuffer(b).values.length;
        if (n !== POINTS) throw new Error("avsc lost points");
      });
      encoded = [];
      const Telemetry = ava.defineNamespace({
        name: "telemetry",
        tables: { points: ava.table({ schema: ava.avro.avroStreamArrowSchema }) },
      });
      const ns = await Telemetry.open({
        storage: ava.browserStorage({ name: `avro${ulid()}`, persist: false }),
      });
      await ns.push();
      await ns.points.appendAvroStream(warm); // warm, untimed
      const file = bytes;
      timings.ingest = await timed(1, () => ns.points.appendAvroStream(file));
    }
  }
  return timings;
});
