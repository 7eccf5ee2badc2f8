// Tab switching; a tab's `onShow` runs the first time it is opened (SQL loads duckdb-wasm only then).
export function tabs(onShow: Record<string, () => void>): void {
  const shown = new Set<string>();
  for (const button of document.querySelectorAll<HTMLButtonElement>("nav button")) {
    button.addEventListener("click", () => {
      const tab = button.dataset.tab!;
      for (const b of document.querySelectorAll("nav button")) b.classList.toggle("active", b === button);
      for (const t of document.querySelectorAll(".tab")) t.classList.toggle("active", t.id === `tab-${tab}`);
      if (!shown.has(tab)) {
        shown.add(tab);
        onShow[tab]?.();
      }
    });
  }
}
