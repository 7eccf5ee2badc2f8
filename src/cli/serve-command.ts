// `avalanche-web serve`: placeholder until the server lands.
import type { Out } from "./output.js";
import { SERVE_HELP } from "./usage.js";

export async function serveCommand(_root: string, _args: string[], out: Out, _err: Out): Promise<boolean> {
  out(SERVE_HELP);
  return false;
}
