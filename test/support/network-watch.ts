// Vitest browser commands (run on the test server, with Playwright's handle on the browser context) that
// record every request the test page and its Workers make to anywhere but the local test server: the SQL
// tests use them to prove that DuckDB never reaches for the network.
import type { BrowserCommand } from "vitest/node";

const external: string[] = [];
let watching = false;

function isLocal(url: string): boolean {
  try {
    const { protocol, hostname } = new URL(url);
    if (!protocol.startsWith("http") && !protocol.startsWith("ws")) return true; // blob:, data:, …
    return hostname === "localhost" || hostname === "127.0.0.1" || hostname === "[::1]";
  } catch {
    return true;
  }
}

type PlaywrightContext = { context: { on(event: "request", fn: (r: { url(): string }) => void): void } };

export const watchNetwork: BrowserCommand<[]> = (ctx) => {
  if (watching) return;
  (ctx as unknown as PlaywrightContext).context.on("request", (request) => {
    if (!isLocal(request.url())) external.push(request.url());
  });
  watching = true;
};

export const externalRequests: BrowserCommand<[]> = () => [...external];
