// The memo every cache keyed by an object (or a name) repeats: the value the map holds for `key`, made and
// stored on first use. WeakMaps keyed by storages, schemas and snapshots keep what is derived from them
// only as long as they live.

/** What a WeakMap and a Map have in common here. */
interface Memo<K, V> {
  get(key: K): V | undefined;
  set(key: K, value: V): unknown;
}

/** `map`'s value for `key`, made by `make` and stored first when it has none. */
export function getOrCreate<K, V>(map: Memo<K, V>, key: K, make: (key: K) => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = make(key);
    map.set(key, value);
  }
  return value;
}
