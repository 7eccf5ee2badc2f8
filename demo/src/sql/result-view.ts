// A query result as a table (the first rows) and, when it has a time column and numeric columns, as a chart.
import * as A from "apache-arrow";
import uPlot from "uplot";

const MAX_ROWS = 200;

function cell(v: unknown): string {
  if (v === null || v === undefined) return "∅";
  if (typeof v === "number") return Number.isInteger(v) ? String(v) : v.toPrecision(6);
  if (v instanceof Date) return v.toISOString();
  if (typeof v === "object" && "toArray" in v) return JSON.stringify([...(v as A.Vector).toArray()]);
  return String(v);
}

export function renderTable(root: HTMLElement, result: A.Table): void {
  const names = result.schema.fields.map((f) => f.name);
  const table = document.createElement("table");
  table.className = "result";
  const head = table.createTHead().insertRow();
  for (const n of names) head.append(Object.assign(document.createElement("th"), { textContent: n }));
  const body = table.createTBody();
  const columns = names.map((n) => result.getChild(n)!);
  for (let i = 0; i < Math.min(result.numRows, MAX_ROWS); i++) {
    const row = body.insertRow();
    for (const c of columns) row.insertCell().textContent = cell(c.get(i));
  }
  const note = document.createElement("p");
  note.textContent = `${result.numRows.toLocaleString()} rows${result.numRows > MAX_ROWS ? ` (first ${MAX_ROWS} shown)` : ""}`;
  root.append(note, table);
}

/** Seconds since the epoch from a time column's value (Arrow gives ms numbers or bigint ns/µs). */
function seconds(type: A.DataType, v: unknown): number {
  if (v === null || v === undefined) return Number.NaN;
  if (A.DataType.isTimestamp(type)) {
    const perSecond = [1, 1e3, 1e6, 1e9][type.unit]!;
    return typeof v === "bigint" ? Number(v) / perSecond : Number(v) / 1e3; // arrow's number is ms
  }
  return Number(v) / 1e3; // Date32/Date64 read as ms
}

/** Draws the numeric columns against the first time column; false when the result has none. */
export function renderChart(root: HTMLElement, result: A.Table): boolean {
  const fields = result.schema.fields;
  const time = fields.find((f) => A.DataType.isTimestamp(f.type) || A.DataType.isDate(f.type));
  const values = fields.filter(
    (f) => A.DataType.isFloat(f.type) || A.DataType.isInt(f.type) || A.DataType.isDecimal(f.type),
  );
  if (!time || values.length === 0 || result.numRows === 0) return false;
  const t = result.getChild(time.name)!;
  const order = Array.from({ length: result.numRows }, (_, i) => i)
    .map((i) => [seconds(time.type, t.get(i)), i] as const)
    .filter(([s]) => !Number.isNaN(s))
    .sort((a, b) => a[0] - b[0]);
  const data: uPlot.AlignedData = [
    order.map(([s]) => s),
    ...values.map((f) => {
      const col = result.getChild(f.name)!;
      return order.map(([, i]) => {
        const v = col.get(i);
        return v === null ? null : Number(v);
      });
    }),
  ];
  const box = document.createElement("div");
  box.className = "panel sql-chart";
  root.append(box);
  new uPlot(
    {
      title: `${values.map((f) => f.name).join(", ")} by ${time.name}`,
      width: Math.min(1200, root.clientWidth || 900),
      height: 240,
      scales: { x: { time: true } },
      series: [
        {},
        ...values.map((f, i) => ({
          label: f.name,
          stroke: ["#2563eb", "#dc2626", "#059669", "#d97706"][i % 4]!,
          spanGaps: true,
        })),
      ],
    },
    data,
    box,
  );
  return true;
}
