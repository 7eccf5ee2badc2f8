// Scan filters written as text, for the command line and the REST API: `x > 1 and (name = 'a' or y is
// null)`, `channel in ('a', 'b')`. The result is the same Predicate a scan takes, so the catalog's statistics
// prune files for it as for a filter built in code. Quoted strings compared with a timestamp column are read
// as dates (`_ava_updated_at >= '2026-01-01T00:00:00Z'`).
import * as A from "apache-arrow";
import { AvaError } from "../errors.js";
import type { Predicate, Scalar } from "./predicate.js";

type Token =
  | { kind: "word"; text: string; at: number }
  | { kind: "string"; text: string; at: number }
  | { kind: "number"; text: string; at: number }
  | { kind: "punct"; text: string; at: number };

const OPS: Record<string, "eq" | "ne" | "lt" | "lte" | "gt" | "gte"> = {
  "=": "eq",
  "==": "eq",
  "!=": "ne",
  "<>": "ne",
  "<": "lt",
  "<=": "lte",
  ">": "gt",
  ">=": "gte",
};

function bad(text: string, why: string): AvaError {
  return new AvaError("INVALID_ARGUMENT", `filter ${JSON.stringify(text)}: ${why}`);
}

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (/\s/.test(c)) {
      i++;
    } else if (c === "'" || c === '"') {
      // '…' is a string value; "…" a quoted column name. A doubled quote stands for itself.
      let value = "";
      let j = i + 1;
      for (;;) {
        if (j >= text.length) throw bad(text, `unterminated quote at ${i}`);
        if (text[j] === c) {
          if (text[j + 1] === c) {
            value += c;
            j += 2;
            continue;
          }
          break;
        }
        value += text[j++];
      }
      tokens.push({ kind: c === "'" ? "string" : "word", text: value, at: i });
      i = j + 1;
    } else if (/[-0-9.]/.test(c) && /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?/.test(text.slice(i))) {
      const m = /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?/.exec(text.slice(i))!;
      tokens.push({ kind: "number", text: m[0], at: i });
      i += m[0].length;
    } else if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i))!;
      tokens.push({ kind: "word", text: m[0], at: i });
      i += m[0].length;
    } else {
      const two = text.slice(i, i + 2);
      const p = ["<=", ">=", "!=", "<>", "=="].includes(two) ? two : c;
      if (!"()<>=,".includes(p[0]!) && !OPS[p]) throw bad(text, `unexpected ${JSON.stringify(c)} at ${i}`);
      tokens.push({ kind: "punct", text: p, at: i });
      i += p.length;
    }
  }
  return tokens;
}

/** Parses `text` into a Predicate; `schema` (the table's stored schema) types the values. */
export function parseFilter(text: string, schema: A.Schema): Predicate {
  if (typeof text !== "string" || text.trim() === "") throw bad(String(text), "empty");
  const tokens = tokenize(text);
  let pos = 0;
  const peek = () => tokens[pos];
  const isWord = (t: Token | undefined, w: string) => t?.kind === "word" && t.text.toLowerCase() === w;
  const expect = (p: string) => {
    const t = tokens[pos++];
    if (t?.kind !== "punct" || t.text !== p)
      throw bad(text, `expected "${p}" ${t ? `at ${t.at}` : "at the end"}`);
  };

  const value = (column: string): Scalar => {
    const t = tokens[pos++];
    if (!t) throw bad(text, `a value is missing after ${column}`);
    const type = schema.fields.find((f) => f.name === column)?.type;
    if (t.kind === "number") {
      const integer = /^-?\d+$/.test(t.text);
      // Int64 and timestamp columns compare exactly as bigint; others as numbers.
      const wide = type && (A.DataType.isTimestamp(type) || (A.DataType.isInt(type) && type.bitWidth === 64));
      if (integer && wide) return BigInt(t.text);
      return Number(t.text);
    }
    if (t.kind === "string") {
      if (type && A.DataType.isTimestamp(type)) {
        const d = new Date(t.text);
        if (Number.isNaN(d.getTime())) throw bad(text, `'${t.text}' is not a date for ${column}`);
        return d;
      }
      return t.text;
    }
    if (isWord(t, "true")) return true;
    if (isWord(t, "false")) return false;
    throw bad(text, `expected a value at ${t.at}, got ${JSON.stringify(t.text)}`);
  };

  const comparison = (): Predicate => {
    const t = peek();
    if (t?.kind === "punct" && t.text === "(") {
      pos++;
      const inner = or();
      expect(")");
      return inner;
    }
    if (t?.kind !== "word") throw bad(text, `expected a column ${t ? `at ${t.at}` : "at the end"}`);
    pos++;
    const column = t.text;
    const next = tokens[pos++];
    if (isWord(next, "is")) {
      const not = isWord(peek(), "not");
      if (not) pos++;
      if (!isWord(tokens[pos++], "null")) throw bad(text, `expected "null" after "is" for ${column}`);
      return { op: not ? "notNull" : "isNull", column };
    }
    if (isWord(next, "in")) {
      expect("(");
      const values = [value(column)];
      while (peek()?.kind === "punct" && peek()!.text === ",") {
        pos++;
        values.push(value(column));
      }
      expect(")");
      return { op: "in", column, values };
    }
    const op = next?.kind === "punct" ? OPS[next.text] : undefined;
    if (!op) throw bad(text, `expected a comparison after ${column} (= != < <= > >= in, is null)`);
    return { op, column, value: value(column) };
  };

  const and = (): Predicate => {
    const args = [comparison()];
    while (isWord(peek(), "and")) {
      pos++;
      args.push(comparison());
    }
    return args.length === 1 ? args[0]! : { op: "and", args };
  };

  const or = (): Predicate => {
    const args = [and()];
    while (isWord(peek(), "or")) {
      pos++;
      args.push(and());
    }
    return args.length === 1 ? args[0]! : { op: "or", args };
  };

  const predicate = or();
  if (pos < tokens.length)
    throw bad(text, `unexpected ${JSON.stringify(tokens[pos]!.text)} at ${tokens[pos]!.at}`);
  return predicate;
}
