import { expect, it } from "vitest";
import * as avroOnly from "../../src/avro.js";
import { avro, opfsFileSink } from "../../src/index.js";
import { ulid } from "../../src/util/ids.js";
import { expectAvaError } from "../shared/fixtures.js";

it("writes an Avro stream file into OPFS, whole, and reads it back from a File", async () => {
  const path = `telemetry-${ulid()}/flight.avro`;
  const w = avro.createWriter(await opfsFileSink(path), { codec: "snappy" });
  for (let i = 0; i < 1000; i++) w.enqueue("altitude", BigInt(i), 1000 + i);
  await w.close();
  const [folder, name] = path.split("/");
  const file = await (
    await (await navigator.storage.getDirectory()).getDirectoryHandle(folder!)
  ).getFileHandle(name!);
  const records = await avro.readAvroStream(await file.getFile());
  expect(records.flatMap((r) => Array.from(r.values.values as Float64Array))).toEqual(
    Array.from({ length: 1000 }, (_, i) => 1000 + i),
  );
  await expectAvaError(opfsFileSink("../escape.avro"), "INVALID_NAME");
});

it("avalanche-web/avro alone writes to OPFS too (opfsFileSink needs no Parquet)", async () => {
  const path = `telemetry-${ulid()}/avro-only.avro`;
  const w = avroOnly.createWriter(await avroOnly.opfsFileSink(path), { codec: "deflate" });
  w.enqueue("fault_code", 1n, "E07");
  await w.close();
  const [folder, name] = path.split("/");
  const file = await (
    await (await navigator.storage.getDirectory()).getDirectoryHandle(folder!)
  ).getFileHandle(name!);
  const records = await avroOnly.readAvroStream(await file.getFile());
  expect(records.map((r) => [r.channel, r.values.values])).toEqual([["fault_code", ["E07"]]]);
});
