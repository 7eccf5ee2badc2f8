// The warehouse's drivers (`pg`, `@aws-sdk/client-s3`) are optional peer dependencies: imported only when a
// warehouse storage is first used, so nodeStorage users install nothing, and a missing one is a typed error
// that says what to install rather than a module-resolution stack trace.
import { AvaError } from "../../errors.js";

const loading = new Map<string, Promise<unknown>>();

/** Imports `name` once per process; UNAVAILABLE (naming the npm package) when it is not installed. */
export function optionalModule<T>(name: string, purpose: string): Promise<T> {
  let module = loading.get(name);
  if (!module) {
    // A variable specifier keeps bundlers from resolving (and demanding) the package at build time.
    const specifier = name;
    module = import(/* @vite-ignore */ specifier).catch((cause: unknown) => {
      loading.delete(name); // installing it later in a long-lived process should work
      const code = (cause as { code?: string })?.code;
      const missing = code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND";
      throw new AvaError(
        "UNAVAILABLE",
        missing
          ? `${purpose} needs the optional package "${name}": run \`npm install ${name}\``
          : `${purpose}: loading "${name}" failed: ${String(cause)}`,
        { cause },
      );
    });
    loading.set(name, module);
  }
  return module as Promise<T>;
}
