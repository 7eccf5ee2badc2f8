// A cheaper way to a request's whole body than its web stream, left on the Request by the adapter that
// built it (toNodeListener): node:http's chunks read straight into one buffer of the declared length, with
// no web-stream adapter per chunk and no joining copy at the end. The Request keeps its ordinary body
// stream; whichever of the two is read first is the one that may be read (the other then says so).
// No node:* import here: the fetch-style handler that looks for it runs in browsers too.

/**
 * The body, or `undefined` once it passes `limit` (reading stops); `null` if the body stream was read
 * instead. Its `release()` says the bytes are done with: the adapter may then read the next request's body
 * into the same memory (a fresh multi-megabyte buffer a request was a good part of an ingest's GC).
 */
export type DirectBodyReader = (limit: number) => Promise<DirectBody | undefined | null>;

export interface DirectBody {
  bytes: Uint8Array;
  /** Call once nothing reads `bytes` any more (nor any view of them). */
  release(): void;
}

const readers = new WeakMap<Request, DirectBodyReader>();

export function setDirectBody(request: Request, read: DirectBodyReader): void {
  readers.set(request, read);
}

/** The request's direct reader, if its adapter left one (taken: a body is read once). */
export function takeDirectBody(request: Request): DirectBodyReader | undefined {
  const read = readers.get(request);
  readers.delete(request);
  return read;
}
