// `npm run bench`: every benchmark, each printing its table of medians and ratios. Never part of `npm test`.
import { benchTables } from "./tables.js";

await benchTables();
