// Names that become folder names must not escape them: no separators, no "..", no control characters.
import { AvaError } from "../errors.js";

const NAME = /^[A-Za-z_][A-Za-z0-9_-]{0,127}$/;

export function checkName(kind: string, name: unknown): string {
  if (typeof name !== "string" || !NAME.test(name)) {
    throw new AvaError(
      "INVALID_NAME",
      `${kind} name ${JSON.stringify(name)} is not allowed: use 1-128 letters, digits, "_" or "-", starting with a letter or "_"`,
    );
  }
  return name;
}
