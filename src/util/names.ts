// Names that become folder names must not escape them: no separators, no "..", no control characters.
import { AvaError } from "../errors.js";

const NAME = /^[A-Za-z_][A-Za-z0-9_-]{0,127}$/;

export function checkName(kind: string, name: unknown): string {
  if (typeof name === "string" && name in Object.prototype)
    // Names become keys of plain objects (catalog records, the namespace handle): "__proto__" or
    // "constructor" would read the prototype's member and go silently missing.
    throw new AvaError(
      "INVALID_NAME",
      `${kind} name ${JSON.stringify(name)} is reserved by JavaScript objects`,
    );
  if (typeof name !== "string" || !NAME.test(name)) {
    throw new AvaError(
      "INVALID_NAME",
      `${kind} name ${JSON.stringify(name)} is not allowed: use 1-128 letters, digits, "_" or "-", starting with a letter or "_"`,
    );
  }
  return name;
}

const KEY = /^[a-z][a-z0-9_]*$/;

/** The key of a durable consumer (an append_scan stream, a cursor): lower case, digits and `_`. */
export function checkKey(where: string, key: unknown): string {
  if (typeof key !== "string" || !KEY.test(key))
    throw new AvaError(
      "INVALID_ARGUMENT",
      `${where} needs a key matching ${KEY}, got ${JSON.stringify(key)}`,
    );
  return key;
}
