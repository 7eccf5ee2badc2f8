// Vite's `?url` imports (used for the duckdb-wasm bundles) resolve to the URL of the file.
declare module "*?url" {
  const url: string;
  export default url;
}
