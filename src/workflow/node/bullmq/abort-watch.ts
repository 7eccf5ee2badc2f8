// One "abort" listener per run signal, however many of that run's nodes wait on it. The executor queues up to
// `concurrency` (64) nodes of a run at once: a listener each on the run's one long-lived signal made Node warn
// of a possible leak (MaxListenersExceededWarning) past 10, and a big fan-out kept dozens attached at a time.

/** Registers `onAbort` for `signal`; the function it returns unregisters it (the last one out detaches). */
export type AbortWatch = (signal: AbortSignal, onAbort: () => void) => () => void;

export function abortWatch(): AbortWatch {
  const watched = new Map<AbortSignal, { callbacks: Set<() => void>; fire: () => void }>();
  return (signal, onAbort) => {
    let entry = watched.get(signal);
    if (!entry) {
      const callbacks = new Set<() => void>();
      const fire = () => {
        watched.delete(signal);
        for (const callback of callbacks) callback();
      };
      entry = { callbacks, fire };
      watched.set(signal, entry);
      signal.addEventListener("abort", fire, { once: true });
    }
    const { callbacks, fire } = entry;
    callbacks.add(onAbort);
    return () => {
      callbacks.delete(onAbort);
      if (callbacks.size > 0 || watched.get(signal)?.callbacks !== callbacks) return;
      watched.delete(signal);
      signal.removeEventListener("abort", fire);
    };
  };
}
