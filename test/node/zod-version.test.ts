// A zod 3 schema (zod 4's package still ships zod 3 as "zod/v3") is refused with a message that says zod 4
// is needed and how to get it, whether it is the table's object or one field inside a zod 4 object.
// (Node only: the browser project would have Vite discover and pre-bundle "zod/v3" mid-run.)
import { expect, it } from "vitest";
import { z } from "zod";
import { z as z3 } from "zod/v3";
import * as ava from "../../src/index.js";
import { expectAvaError } from "../shared/fixtures.js";

it("a zod 3 object is refused, saying zod 4 is needed and how to install it", async () => {
  const schema = z3.object({ sensor: z3.string() }) as unknown as z.ZodObject;
  const err = await expectAvaError(
    () => ava.table({ schema }),
    "UNSUPPORTED_TYPE",
    /must be a zod 4 z\.object\(\{\.\.\.\}\); this is a zod 3 schema \(ZodObject\)/,
    /npm install zod@4/,
  );
  expect(err.message).toContain('"zod/v4"');
});

it("a zod 3 field inside a zod 4 object is refused, naming the field and zod 4", async () => {
  const schema = z.object({ ok: z.string(), at: z3.date() as unknown as z.ZodDate });
  await expectAvaError(
    () => ava.table({ schema }),
    "UNSUPPORTED_TYPE",
    /field "at" is a zod 3 schema \(ZodDate\): avalanche-web needs zod 4/,
  );
});

it("something that is no zod schema at all is still named as such", async () => {
  await expectAvaError(
    () => ava.table({ schema: z.object({ x: { parse() {} } as unknown as z.ZodString }) }),
    "UNSUPPORTED_TYPE",
    /field "x" is not a zod schema/,
  );
});
