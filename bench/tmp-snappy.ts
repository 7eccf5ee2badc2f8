import { snappyDecompress, snappyCompress } from "../src/avro/snappy.js";
import { crc32 } from "../src/avro/crc32.js";
import { createWriter, memorySink } from "../src/avro.js";
import { liveRounds, CHANNELS } from "./live-data.js";
const [r] = liveRounds(1);
const sink = memorySink();
const w = createWriter(sink, { codec: "null", maxBatchPoints: 250000 });
for (let c = 0; c < CHANNELS; c++) w.enqueueBatch(`ch${c}`, r!.ts, r!.values[c]!);
await w.close();
const raw = sink.bytes();
console.log("raw bytes", raw.length);
const comp = snappyCompress(raw).slice();
console.log("compressed", comp.length, (comp.length / raw.length).toFixed(3));
// op histogram
let lits = 0, litBytes = 0, copies = 0, copyBytes = 0, shortLit = 0;
{ let i = 0; while (comp[i]! & 0x80) i++; i++;
  while (i < comp.length) { const tag = comp[i++]!; const t = tag & 3;
    if (t === 0) { let len = (tag >>> 2) + 1; if (len > 60) { const e = len - 60; len = 0; for (let k = 0; k < e; k++) len += comp[i + k]! * 2 ** (8 * k); len++; i += e; } lits++; litBytes += len; if (len < 32) shortLit++; i += len; }
    else { copies++; if (t === 1) { copyBytes += 4 + ((tag >>> 2) & 7); i++; } else if (t === 2) { copyBytes += (tag >>> 2) + 1; i += 2; } else { copyBytes += (tag >>> 2) + 1; i += 4; } } } }
console.log({ lits, litBytes, shortLit, copies, copyBytes });
const out = new Uint8Array(raw.length + 100);
for (let rep = 0; rep < 5; rep++) {
  let t0 = performance.now(); for (let k = 0; k < 20; k++) snappyDecompress(comp, 1 << 30, () => out.subarray(0, raw.length)); let ms = performance.now() - t0;
  const d = (20 * raw.length / 1e6) / (ms / 1e3);
  t0 = performance.now(); for (let k = 0; k < 20; k++) crc32(raw); const ms2 = performance.now() - t0;
  t0 = performance.now(); const cbuf = new Uint8Array(raw.length * 2); for (let k = 0; k < 20; k++) snappyCompress(raw, () => cbuf); const ms3 = performance.now() - t0;
  console.log(`decompress ${d.toFixed(0)} MB/s (${(ms/20).toFixed(1)} ms/batch), crc32 ${((20 * raw.length / 1e6) / (ms2 / 1e3)).toFixed(0)} MB/s (${(ms2/20).toFixed(1)} ms), compress ${(ms3/20).toFixed(1)} ms/batch`);
}
