// The process's Postgres pools, by connection string, typed without `pg`'s own types: the public
// `closePostgresPools` lives here so that avalanche-web/node's declarations never name the optional `pg`
// package (a TypeScript user without it installed must still type-check).

interface Closable {
  end(): Promise<void>;
}

export const pools = new Map<string, Promise<Closable>>();

/** Ends every Postgres pool of this process (tests, or a service shutting down cleanly). */
export async function closePostgresPools(): Promise<void> {
  const all = [...pools.values()];
  pools.clear();
  await Promise.all(all.map((p) => p.then((pool) => pool.end()).catch(() => {})));
}
