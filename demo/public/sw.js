// The demo's service worker, hand-written so what it does is plain: on install it downloads every file of
// the build (the list scripts/precache.mjs writes to precache.json: app shell, JS, Workers, the Parquet and
// DuckDB wasm files, ~80 MB) into one cache named after the build; then every GET it has is answered from
// that cache, so after one visit the app starts with the network off. Navigations (any ?query) get the
// cached index.html. A new build installs its own cache and the old one is deleted on activation.
const MANIFEST = "precache.json";

self.addEventListener("install", (event) => {
  event.waitUntil(
    (async () => {
      const manifest = await (await fetch(MANIFEST, { cache: "no-store" })).json();
      const cache = await caches.open(`demo-${manifest.version}`);
      // no size limit: DuckDB's 34-39 MB wasm files are precached like everything else
      await cache.addAll(manifest.files);
      await self.skipWaiting();
    })(),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      const keep = (await caches.keys()).filter((k) => k.startsWith("demo-"));
      const current = await currentCache();
      await Promise.all(keep.filter((k) => k !== current).map((k) => caches.delete(k)));
      await self.clients.claim();
    })(),
  );
});

/** The newest demo cache (the one this worker filled). */
async function currentCache() {
  const names = (await caches.keys()).filter((k) => k.startsWith("demo-"));
  return names.at(-1);
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin) return;
  event.respondWith(
    (async () => {
      const cache = await caches.open((await currentCache()) ?? "demo-none");
      const navigate = request.mode === "navigate";
      const key = navigate ? new URL("index.html", self.registration.scope).href : request.url;
      // ignoreVary: the server varies on Origin, which module and worker requests send and addAll did not
      const hit = await cache.match(key, { ignoreSearch: navigate, ignoreVary: true });
      return hit ?? fetch(request);
    })(),
  );
});
