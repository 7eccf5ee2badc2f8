// Storage health in the header: persistence (requested by browserStorage on first use) and the quota, plus
// an online/offline badge.
import type * as ava from "avalanche-web";
import { everyIdle } from "./idle.js";

export async function showStorage(root: HTMLElement, storage: ava.BrowserStorage): Promise<void> {
  const render = async () => {
    const [persisted, { usage = 0, quota = 0 }] = await Promise.all([
      storage.persisted(),
      storage.estimate(),
    ]);
    const mb = (n: number) => `${(n / 2 ** 20).toFixed(1)} MiB`;
    root.textContent = `${persisted ? "persistent storage" : "storage not persistent (browser refused)"} · ${mb(usage)} used of ${mb(quota)}`;
  };
  await render();
  everyIdle(5_000, () => void render());
}

export function showNetwork(badge: HTMLElement): void {
  const render = () => {
    badge.textContent = navigator.onLine ? "online" : "offline";
    badge.classList.toggle("offline", !navigator.onLine);
  };
  addEventListener("online", render);
  addEventListener("offline", render);
  render();
}
