// `ava.step(fn, options)`: a function that becomes a node each time a workflow builder calls it. Outside
// a builder a step is not callable; inside, a call records an invocation and returns a future of its value.
import { AvaError } from "../errors.js";
import { currentBuild } from "./build.js";
import type { NodeFuture } from "./future.js";

export type StepRole = "step" | "source" | "dest";

/** A value a step receives, or a future of it. */
export type FutureOr<T> = T | NodeFuture<T>;

export interface StepOptions {
  /**
   * The node's slug; by default the name given first (`ava.step("name", fn)`), else the function's name.
   * Repeated calls get `slug_2`, `slug_3`, …
   */
  slug?: string;
  /**
   * Values handed to the function as one last argument, resolved when the node runs: table declarations
   * (`Def.tables.x`, opened on the run's storage), `ava.runContext()`, `ava.runInput()`.
   */
  inject?: Record<string, unknown>;
  /** The function returns an array of this many values; calling the step gives as many futures. */
  numReturns?: number;
}

export interface StepDefinition {
  readonly kind: "avalanche.step";
  readonly fn: (...args: never[]) => unknown;
  readonly name: string;
  readonly slug: string;
  readonly role: StepRole;
  readonly inject: Readonly<Record<string, unknown>> | undefined;
  readonly numReturns: number;
}

// biome-ignore lint/suspicious/noExplicitAny: a step's arguments are whatever its function takes
type AnyFn = (...args: any[]) => unknown;

/** What calling a step inside a builder gives: one future, or one per return value. */
export type StepCall<F extends AnyFn, N extends number | undefined> = N extends number
  ? NodeFuture<unknown>[]
  : NodeFuture<Awaited<ReturnType<F>>>;

/** A step's call inside a builder: each argument its value or a future of it (injected values excluded). */
export type Step<F extends AnyFn, N extends number | undefined = undefined> = ((
  // biome-ignore lint/suspicious/noExplicitAny: see AnyFn
  ...args: any[]
) => StepCall<F, N>) & {
  readonly definition: StepDefinition;
};

const SLUG = /^[A-Za-z_][A-Za-z0-9_-]{0,127}$/;

/**
 * A step's definition. A function without a name (a minifier strips `function generate` to `function`)
 * is not refused here, where it would break the import of the module that defines it: the workflow that
 * calls it refuses to run, saying how to name it.
 */
function define<F extends AnyFn, N extends number | undefined>(
  role: StepRole,
  fn: F,
  options: StepOptions & { numReturns?: N } = {},
): Step<F, N> {
  if (typeof fn !== "function")
    throw new AvaError("INVALID_ARGUMENT", `ava.${role}(name, fn): fn is not a function`);
  const slug = options.slug ?? fn.name;
  if (slug !== "" && !SLUG.test(slug))
    throw new AvaError(
      "WORKFLOW_INVALID",
      `step slug "${slug}" must be letters, digits, _ or - (starting with a letter or _), at most 128`,
    );
  const numReturns = options.numReturns ?? 1;
  if (!Number.isInteger(numReturns) || numReturns < 1)
    throw new AvaError("INVALID_ARGUMENT", `step ${slug}: numReturns must be a positive integer`);
  const definition: StepDefinition = Object.freeze({
    kind: "avalanche.step",
    fn,
    name: fn.name || slug,
    slug,
    role,
    inject: options.inject && Object.freeze({ ...options.inject }),
    numReturns,
  });
  const call = (...args: unknown[]) => {
    const build = currentBuild();
    if (!build)
      throw new AvaError(
        "WORKFLOW_INVALID",
        `step ${slug} was called outside a workflow builder; call steps inside ava.workflow(options, () => …)`,
      );
    return build.invoke(definition, args, options.numReturns !== undefined);
  };
  return Object.assign(call, { definition }) as Step<F, N>;
}

/** `(name, fn, options)` or `(fn, options)`: the options with the name as the slug. */
function parse<F extends AnyFn, O extends StepOptions>(
  role: StepRole,
  first: string | F,
  second: F | O | undefined,
  third: O | undefined,
): [F, O | StepOptions] {
  if (typeof first !== "string") return [first, (second as O | undefined) ?? {}];
  if (!SLUG.test(first))
    throw new AvaError(
      "WORKFLOW_INVALID",
      `ava.${role}(${JSON.stringify(first)}, fn): the name must be letters, digits, _ or - (starting with a letter or _), at most 128`,
    );
  return [second as F, { ...third, slug: first }];
}

type Options<N extends number | undefined> = StepOptions & { numReturns?: N };

/**
 * A step: `ava.step("generate", async (n: number) => …, options?)`. The name is the node's slug, stable
 * in minified builds; `ava.step(async function generate(…) {…})` takes the function's name, which a
 * minifier strips (the workflow then refuses to run, saying so).
 */
export function step<F extends AnyFn, N extends number | undefined = undefined>(
  name: string,
  fn: F,
  options?: Options<N>,
): Step<F, N>;
export function step<F extends AnyFn, N extends number | undefined = undefined>(
  fn: F,
  options?: Options<N>,
): Step<F, N>;
export function step<F extends AnyFn, N extends number | undefined = undefined>(
  first: string | F,
  second?: F | Options<N>,
  third?: Options<N>,
): Step<F, N> {
  return define("step", ...parse("step", first, second, third)) as Step<F, N>;
}

/** A step that brings data in (its role is recorded). */
export function source<F extends AnyFn, N extends number | undefined = undefined>(
  name: string,
  fn: F,
  options?: Options<N>,
): Step<F, N>;
export function source<F extends AnyFn, N extends number | undefined = undefined>(
  fn: F,
  options?: Options<N>,
): Step<F, N>;
export function source<F extends AnyFn, N extends number | undefined = undefined>(
  first: string | F,
  second?: F | Options<N>,
  third?: Options<N>,
): Step<F, N> {
  return define("source", ...parse("source", first, second, third)) as Step<F, N>;
}

/** A step that sends data out (its role is recorded). */
export function dest<F extends AnyFn, N extends number | undefined = undefined>(
  name: string,
  fn: F,
  options?: Options<N>,
): Step<F, N>;
export function dest<F extends AnyFn, N extends number | undefined = undefined>(
  fn: F,
  options?: Options<N>,
): Step<F, N>;
export function dest<F extends AnyFn, N extends number | undefined = undefined>(
  first: string | F,
  second?: F | Options<N>,
  third?: Options<N>,
): Step<F, N> {
  return define("dest", ...parse("dest", first, second, third)) as Step<F, N>;
}
