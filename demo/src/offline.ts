// Registers the service worker (production builds only: the dev server's modules are not a fixed list) and
// says when the app is ready to work offline.
export async function registerOffline(status: HTMLElement): Promise<void> {
  // MODE, not PROD: PROD follows NODE_ENV, which a test runner may have set to "test" for the build
  if (import.meta.env.MODE !== "production" || !("serviceWorker" in navigator)) {
    status.textContent = "dev server: no service worker";
    return;
  }
  try {
    await navigator.serviceWorker.register("./sw.js");
    status.textContent = "caching the app for offline use…";
    await navigator.serviceWorker.ready;
    const cached = (await caches.keys()).filter((k) => k.startsWith("demo-"));
    const files = cached.length ? (await (await caches.open(cached.at(-1)!)).keys()).length : 0;
    status.textContent = `works offline (${files} files cached)`;
    status.dataset.ready = "true";
  } catch (err) {
    status.textContent = `offline cache failed: ${(err as Error).message}`;
  }
}
