// The body of a record batch of flat columns (numbers, timestamps, booleans, strings, binary) as
// apache-arrow's VectorAssembler lays it out — the same buffers, in the same order, the same regions — and
// the key its record batch message is cached under in ipc-stream.ts, without the assembler: its visitor
// dispatch and the FieldNode / BufferRegion objects it makes were half of encoding a 10-row append's
// payload. Any other column (nested, dictionary, view, large offsets) gives undefined: apache-arrow
// assembles that batch.
import * as A from "apache-arrow";

export interface FlatLayout {
  /** What ipc-stream.ts's messageKey makes of apache-arrow's assembly of the same batch. */
  key: string;
  /** The body buffers as bytes, each to be padded to 8. */
  buffers: Uint8Array[];
}

const EMPTY = new Uint8Array(0);

function bytesOf(view: ArrayBufferView): Uint8Array {
  return view instanceof Uint8Array ? view : new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
}

/** The layout of `batch`, or undefined when a column is not of the flat kinds laid out here. */
export function flatLayout(batch: A.RecordBatch): FlatLayout | undefined {
  const buffers: Uint8Array[] = [];
  let nodes = "";
  let regions = "";
  let at = 0;
  const add = (view: ArrayBufferView) => {
    const bytes = bytesOf(view);
    const padded = (bytes.byteLength + 7) & ~7;
    buffers.push(bytes);
    regions += `${at},${padded};`;
    at += padded;
  };
  for (const data of batch.data.children) {
    const type = data.type as A.DataType;
    const typeId = type.typeId;
    const { length, offset } = data;
    // The kinds laid out here, each as VectorAssembler's visitor for it does.
    const flat =
      typeId === A.Type.Int ||
      typeId === A.Type.Float ||
      typeId === A.Type.Timestamp ||
      typeId === A.Type.Date;
    const list = typeId === A.Type.Utf8 || typeId === A.Type.Binary;
    if (!flat && !list && typeId !== A.Type.Bool) return undefined;
    const nullCount = data.nullCount;
    add(nullCount <= 0 ? EMPTY : A.util.truncateBitmap(offset, length, data.nullBitmap!));
    nodes += `${length},${nullCount};`;
    if (flat) {
      // Any typed array (its subarray counts elements, as the stride does).
      add((data.values as Uint8Array).subarray(0, length * data.stride));
    } else if (list) {
      const offsets = data.valueOffsets as Int32Array;
      const values = data.values as Uint8Array;
      const begin = offsets[0]!;
      const byteLength = Math.min(offsets[length]! - begin, values.byteLength - begin);
      add(A.util.rebaseValueOffsets(-begin, length + 1, offsets));
      add(values.subarray(begin, begin + byteLength));
    } else if (nullCount >= length) {
      add(new Uint8Array((length + 7) >> 3));
    } else {
      const values = data.values;
      if (!(values instanceof Uint8Array)) return undefined;
      add(A.util.truncateBitmap(offset, length, values));
    }
  }
  // messageKey's order: rows, body length, nodes, regions, variadic buffer counts (none here).
  return { key: `${batch.numRows};${at};${nodes}${regions}`, buffers };
}
