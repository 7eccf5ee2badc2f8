// avalanche-web/avro: Avro stream telemetry files alone (no Parquet wasm in this bundle).
export { AvaError, type AvaErrorCode, isAvaError } from "./errors.js";
export { type AvroCodec, type AvroReadCodec, CODECS, READ_CODECS } from "./avro/codecs.js";
export { type EncodeOptions, encodeAvroStream } from "./avro/encode.js";
export type { SnappyMode } from "./avro/snappy.js";
export type { NodeTls } from "./avro/live/node-http-post.js";
export {
  type AvroSource,
  type AvroStreamFile,
  openAvroStream,
  type ReadOptions,
  readAvroStream,
} from "./avro/read.js";
export type { AvroStreamRecord, AvroValue, RecordValues } from "./avro/record.js";
export {
  avroStreamArrowSchema,
  avroStreamToArrow,
  recordsToArrow,
  type TimestampType,
  type ToArrowOptions,
} from "./avro/to-arrow.js";
export type { StreamValue, Timestamp, TimestampUnit } from "./avro/values.js";
export {
  type AvroSink,
  AvroStreamWriter,
  createWriter,
  memorySink,
  streamSink,
  type WriterOptions,
} from "./avro/writer.js";
// OPFS needs no Parquet either; also exported from "avalanche-web".
export { opfsFileSink } from "./storage/browser/opfs-avro-sink.js";
export {
  AVRO_STREAM_SCHEMA,
  AVRO_STREAM_SCHEMA_TEXT,
  resolveStreamSchema,
  type SchemaVariant,
  type StreamSchema,
  type ValueKind,
} from "./avro/schema.js";
export {
  createLiveStream,
  LiveStream,
  type LiveStreamOptions,
  type LiveStreamStatus,
} from "./avro/live/live-stream.js";
export {
  type AvroTransportOptions,
  avroTransport,
  isRetryable,
  type LiveBatch,
  type Transport,
} from "./avro/live/transport.js";
export { type NominalTransportOptions, nominalTransport } from "./avro/live/nominal-transport.js";
