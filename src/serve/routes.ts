// The server's route table: method + path pattern (`:name` segments) -> handler. Mutating routes need the
// token; every name taken from a path is checked before anything looks it up.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ServerState } from "./state.js";

export interface RouteContext {
  req: IncomingMessage;
  res: ServerResponse;
  params: Record<string, string>;
  query: URLSearchParams;
  state: ServerState;
}

export interface Route {
  method: "GET" | "POST";
  path: string;
  /** Changes something (starts a run, appends rows): needs the token. */
  mutating: boolean;
  summary: string;
  handler(ctx: RouteContext): Promise<void>;
}

/** The route for a method and path, with its parameters; or why there is none (404, or 405 for the method). */
export function matchRoute(
  routes: readonly Route[],
  method: string,
  pathname: string,
): { route: Route; params: Record<string, string> } | { status: 404 | 405; allowed?: string[] } {
  const segments = pathname.split("/").slice(1);
  const allowed: string[] = [];
  for (const route of routes) {
    const pattern = route.path.split("/").slice(1);
    if (pattern.length !== segments.length) continue;
    const params: Record<string, string> = {};
    let ok = true;
    for (let i = 0; i < pattern.length && ok; i++) {
      const p = pattern[i]!;
      let s: string;
      try {
        s = decodeURIComponent(segments[i]!);
      } catch {
        ok = false;
        break;
      }
      if (p.startsWith(":")) params[p.slice(1)] = s;
      else ok = p === s;
    }
    if (!ok) continue;
    if (route.method === method) return { route, params };
    allowed.push(route.method);
  }
  return allowed.length > 0 ? { status: 405, allowed } : { status: 404 };
}
