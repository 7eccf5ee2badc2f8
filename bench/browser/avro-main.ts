// The Avro bench page: write and read 10M double points (1,000 a record, 100 channels) with each codec on
// the main thread of Chromium, then ingest the null-codec file into a browserStorage table (OPFS).
import * as ava from "../../src/index.js";
import { ulid } from "../../src/util/ids.js";
import { avroRecords, POINTS, RECORDS } from "../avro-data.js";
import { avscBrowser } from "./avsc-peer.js";
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
      timings.read_null_reuse = await timed(3, async () => {
        let n = 0;
        const file = await ava.avro.openAvroStream(bytes);
        for await (const r of file.records({ reuse: true })) n += r.timestamps.length;
        if (n !== POINTS) throw new Error("read lost points");
      });
      const Telemetry = ava.defineNamespace({
        name: "telemetry",
        tables: { points: ava.table({ schema: ava.avro.avroStreamArrowSchema }) },
      });
      const ns = await Telemetry.open({
        storage: ava.browserStorage({ name: `avro${ulid()}`, persist: false }),
      });
      await ns.push();
      await ns.points.appendAvroStream(warm); // warm, untimed
      const nullFile = bytes;
      timings.ingest = await timed(1, () => ns.points.appendAvroStream(nullFile));
      // avsc beside it (built after ours ran: its millions of objects slow every collection of ours).
      const avsc = await avscBrowser();
      const peerRecords = avsc.blocks.records(records);
      await avsc.blocks.read(await avsc.blocks.write(peerRecords.slice(0, RECORDS / 10), "null")); // warm
      let avscFile: Uint8Array = new Uint8Array(0);
      timings.avsc_write = await timed(1, async () => {
        avscFile = await avsc.blocks.write(peerRecords, "null");
      });
      timings.avsc_read = await timed(1, async () => {
        if ((await avsc.blocks.read(avscFile)) !== POINTS) throw new Error("avsc lost points");
      });
      avscFile = new Uint8Array(0);
      let encoded: Uint8Array[] = [];
      timings.avsc_record_write = await timed(1, async () => {
        encoded = peerRecords.map((r) => avsc.recordCodec.toBuffer(r));
      });
      timings.avsc_record_read = await timed(1, async () => {
        let n = 0;
        for (const b of encoded) n += avsc.recordCodec.fromBuffer(b).values.length;
        if (n !== POINTS) throw new Error("avsc lost points");
      });
      encoded = [];
    }
  }
  return timings;
});
