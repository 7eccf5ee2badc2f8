// The custom browser commands of vite.config.ts, typed for tests.
declare module "vitest/browser" {
  interface BrowserCommands {
    watchNetwork(): Promise<void>;
    externalRequests(): Promise<string[]>;
  }
}
export {};
