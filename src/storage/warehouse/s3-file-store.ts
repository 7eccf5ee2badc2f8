// `s3FileStore({ bucket, prefix, client })`: the FileStore on any S3-compatible object store, through
// `@aws-sdk/client-s3` (loaded on first use). Data files are write-once: where the server honours
// `If-None-Match: *` on PUT (AWS S3 since 2024, MinIO, R2) the server refuses an overwrite atomically;
// where it ignores the header (older S3-compatible servers, s3rver) the store falls back to HEAD, then PUT.
// That fallback has a race — two writers that HEAD the same missing key both PUT, and the last one wins —
// which the library never runs into, since every data file gets a fresh unique name: the check only guards
// against bugs, and the probe below picks the atomic form wherever the server offers it.
import { AvaError, describeValue } from "../../errors.js";
import type { FileInfo, FileStore } from "../types.js";
import { optionalModule } from "./optional-module.js";
import { type RetryOptions, withRetry } from "./retry.js";
import { isNotFound, isTransientS3, s3Error } from "./s3-errors.js";
import { getOrCreate } from "../../util/get-or-create.js";

type S3Module = typeof import("@aws-sdk/client-s3");

/** Any S3 client of @aws-sdk/client-s3 v3 (typed loosely, so that the SDK stays an optional dependency). */
export interface S3ClientLike {
  send(command: unknown): Promise<unknown>;
}

/** Plain-data S3 client settings: what a worker thread needs to reopen the store (see StorageDescriptor). */
export interface S3ClientSettings {
  /** e.g. "http://127.0.0.1:9000" for MinIO or s3rver; absent: AWS for `region`. */
  endpoint?: string;
  /** Default "us-east-1". */
  region?: string;
  /** Path-style URLs (`endpoint/bucket/key`), which most self-hosted servers need. Default: true when `endpoint` is set. */
  forcePathStyle?: boolean;
  /** Absent: the SDK's default chain (environment, profile, instance role). */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
}

export interface S3FileStoreOptions {
  bucket: string;
  /** Key prefix under which the store's files live ("" for the whole bucket). Default "". */
  prefix?: string;
  /** A client of your own, or plain settings to make one from. Default: `{}` (AWS, default credentials). */
  client?: S3ClientLike | S3ClientSettings;
  /**
   * How overwrites are refused: "probe" (default) tries `If-None-Match: *` once against the bucket and
   * uses it if the server honours it, else HEAD-then-PUT; `true`/`false` skip the probe.
   */
  conditionalWrites?: "probe" | boolean;
  /** Keys asked for per LIST request (S3's maximum, 1000, by default; tests make pages small). */
  listPageSize?: number;
  /** Retries of requests that failed with a 5xx, throttling or a broken connection. */
  retry?: RetryOptions;
}

/** Where an S3 file store lives, as plain data (its client settings only if they were given as data). */
export interface S3Location {
  bucket: string;
  prefix: string;
  client?: S3ClientSettings;
}

const isClient = (c: unknown): c is S3ClientLike => typeof (c as S3ClientLike)?.send === "function";

/** A key below the store's prefix for a relative storage path; anything that could escape it is refused. */
function checkPath(path: string): string {
  const segments = typeof path === "string" ? path.split("/") : [];
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what we refuse
  const bad = /[\u0000-\u001f\\]/;
  if (segments.length === 0 || segments.some((s) => s === "" || s === "." || s === ".." || bad.test(s)))
    throw new AvaError("INVALID_NAME", `path ${describeValue(path)} is not a relative storage path`);
  return path;
}

export class S3FileStore implements FileStore {
  readonly location: S3Location;
  readonly #given: S3ClientLike | undefined;
  readonly #conditional: "probe" | boolean;
  readonly #pageSize: number;
  readonly #retry: RetryOptions;
  #ready: Promise<{ s3: S3Module; client: S3ClientLike; ifNoneMatch: boolean }> | undefined;

  constructor(options: S3FileStoreOptions) {
    const {
      bucket,
      prefix = "",
      client = {},
      conditionalWrites = "probe",
      listPageSize = 1000,
      retry = {},
    } = options ?? ({} as S3FileStoreOptions);
    if (typeof bucket !== "string" || bucket === "")
      throw new AvaError(
        "INVALID_ARGUMENT",
        `s3FileStore({ bucket }) needs a bucket name, got ${describeValue(bucket)}`,
      );
    if (typeof prefix !== "string" || prefix.startsWith("/"))
      throw new AvaError(
        "INVALID_ARGUMENT",
        `s3FileStore({ prefix }) must be a relative key prefix, got ${describeValue(prefix)}`,
      );
    if (!Number.isInteger(listPageSize) || listPageSize < 1 || listPageSize > 1000)
      throw new AvaError(
        "INVALID_ARGUMENT",
        `s3FileStore({ listPageSize }) must be 1..1000, got ${describeValue(listPageSize)}`,
      );
    const normalized = prefix === "" || prefix.endsWith("/") ? prefix : `${prefix}/`;
    this.#given = isClient(client) ? client : undefined;
    this.location = { bucket, prefix: normalized, ...(isClient(client) ? {} : { client: { ...client } }) };
    this.#conditional = conditionalWrites;
    this.#pageSize = listPageSize;
    this.#retry = retry;
  }

  /** The SDK, the client and whether PUT honours If-None-Match, settled once per store. */
  #open() {
    this.#ready ??= (async () => {
      const s3 = await optionalModule<S3Module>("@aws-sdk/client-s3", "s3FileStore");
      const client = this.#given ?? makeClient(s3, this.location.client ?? {});
      const ifNoneMatch =
        this.#conditional === "probe"
          ? await probedOnce(client, this.location.bucket, () => this.#probe(s3, client))
          : this.#conditional;
      return { s3, client, ifNoneMatch };
    })();
    // A failed start (bad credentials, server down) must not stick: the next call tries again.
    this.#ready.catch(() => {
      this.#ready = undefined;
    });
    return this.#ready;
  }

  /** PUTs one probe object twice with If-None-Match: a server that honours it refuses the second. */
  async #probe(s3: S3Module, client: S3ClientLike): Promise<boolean> {
    const Key = `${this.location.prefix}_ava_probe/${globalThis.crypto.randomUUID()}`;
    const put = () =>
      this.#send(
        () =>
          client.send(
            new s3.PutObjectCommand({
              Bucket: this.location.bucket,
              Key,
              Body: new Uint8Array(0),
              IfNoneMatch: "*",
            }),
          ),
        "probing conditional writes",
      );
    await put();
    try {
      await put();
      return false;
    } catch (err) {
      if (
        (err as { cause?: { $metadata?: { httpStatusCode?: number } } }).cause?.$metadata?.httpStatusCode ===
        412
      )
        return true;
      throw err;
    } finally {
      await client.send(new s3.DeleteObjectCommand({ Bucket: this.location.bucket, Key })).catch(() => {});
    }
  }

  /** One request, retried while it fails transiently, its failure mapped to an AvaError. */
  async #send<T>(request: () => Promise<T>, what: string): Promise<T> {
    try {
      return await withRetry(request, isTransientS3, this.#retry);
    } catch (err) {
      throw s3Error(err, what, this.location.bucket);
    }
  }

  #key(path: string): string {
    return this.location.prefix + checkPath(path);
  }

  async write(path: string, bytes: Uint8Array): Promise<void> {
    const Key = this.#key(path);
    const { s3, client, ifNoneMatch } = await this.#open();
    const Bucket = this.location.bucket;
    const exists = () =>
      new AvaError("IO_ERROR", `writing ${path}: the file exists (data files are written once)`);
    if (!ifNoneMatch && (await this.#exists(s3, client, Key, path))) throw exists();
    let attempts = 0;
    try {
      await withRetry(
        () => {
          attempts++;
          return client.send(
            new s3.PutObjectCommand({
              Bucket,
              Key,
              Body: bytes,
              ...(ifNoneMatch ? { IfNoneMatch: "*" } : {}),
            }),
          );
        },
        isTransientS3,
        this.#retry,
      );
    } catch (err) {
      if ((err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode !== 412)
        throw s3Error(err, `writing ${path}`, Bucket);
      // 412: the key exists. After a retry that may be our own first attempt, which landed although its
      // answer was lost: then the object holds exactly our bytes and the write did succeed.
      if (attempts > 1 && sameBytes(await this.read(path), bytes)) return;
      throw exists();
    }
  }

  async #exists(s3: S3Module, client: S3ClientLike, Key: string, path: string): Promise<boolean> {
    try {
      await withRetry(
        () => client.send(new s3.HeadObjectCommand({ Bucket: this.location.bucket, Key })),
        isTransientS3,
        this.#retry,
      );
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      throw s3Error(err, `writing ${path}`, this.location.bucket);
    }
  }

  async read(path: string): Promise<Uint8Array> {
    const Key = this.#key(path);
    const { s3, client } = await this.#open();
    return this.#send(async () => {
      const out = (await client.send(
        new s3.GetObjectCommand({ Bucket: this.location.bucket, Key }),
      )) as GetOutput;
      return bodyBytes(out);
    }, `reading ${path}`);
  }

  /** `length` bytes from `offset` with one ranged GET (fewer at the end of the file, none past it). */
  async readRange(path: string, offset: number, length: number): Promise<Uint8Array> {
    const Key = this.#key(path);
    if (!Number.isInteger(offset) || offset < 0 || !Number.isInteger(length) || length < 0)
      throw new AvaError("INVALID_ARGUMENT", `reading ${path}: bad range ${offset}+${length}`);
    const { s3, client } = await this.#open();
    if (length === 0) {
      await this.#send(
        () => client.send(new s3.HeadObjectCommand({ Bucket: this.location.bucket, Key })),
        `reading ${path}`,
      );
      return new Uint8Array(0);
    }
    try {
      return await withRetry(
        async () => {
          const Range = `bytes=${offset}-${offset + length - 1}`;
          const out = (await client.send(
            new s3.GetObjectCommand({ Bucket: this.location.bucket, Key, Range }),
          )) as GetOutput;
          // A server that ignores Range sends the whole object: cut the range out of it.
          const bytes = await bodyBytes(out);
          return out.ContentRange ? bytes.subarray(0, length) : bytes.subarray(offset, offset + length);
        },
        isTransientS3,
        this.#retry,
      );
    } catch (err) {
      // 416: the range starts at or past the end, as a file read there returns nothing.
      if ((err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 416)
        return new Uint8Array(0);
      throw s3Error(err, `reading ${path}`, this.location.bucket);
    }
  }

  /** Every file under `prefix`, page by page (S3 answers at most 1000 keys a request). */
  async list(prefix: string): Promise<FileInfo[]> {
    const { s3, client } = await this.#open();
    const out: FileInfo[] = [];
    const from = this.location.prefix.length;
    let ContinuationToken: string | undefined;
    do {
      const page = (await this.#send(
        () =>
          client.send(
            new s3.ListObjectsV2Command({
              Bucket: this.location.bucket,
              Prefix: this.location.prefix + prefix,
              MaxKeys: this.#pageSize,
              ...(ContinuationToken ? { ContinuationToken } : {}),
            }),
          ),
        `listing ${prefix || "/"}`,
      )) as ListOutput;
      for (const o of page.Contents ?? []) {
        // A probe object is only there for a moment, and is no file of the storage.
        if (!o.Key || o.Key.startsWith(`${this.location.prefix}_ava_probe/`)) continue;
        out.push({ path: o.Key.slice(from), size: o.Size ?? 0, modifiedMs: o.LastModified?.getTime() ?? 0 });
      }
      ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (ContinuationToken);
    return out;
  }

  async delete(path: string): Promise<void> {
    const Key = this.#key(path);
    const { s3, client } = await this.#open();
    try {
      await withRetry(
        () => client.send(new s3.DeleteObjectCommand({ Bucket: this.location.bucket, Key })),
        isTransientS3,
        this.#retry,
      );
    } catch (err) {
      if (!isNotFound(err)) throw s3Error(err, `deleting ${path}`, this.location.bucket);
    }
  }
}

interface GetOutput {
  Body?: { transformToByteArray(): Promise<Uint8Array> };
  ContentRange?: string;
}
interface ListOutput {
  Contents?: { Key?: string; Size?: number; LastModified?: Date }[];
  IsTruncated?: boolean;
  NextContinuationToken?: string;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

async function bodyBytes(out: GetOutput): Promise<Uint8Array> {
  if (!out.Body) return new Uint8Array(0);
  return out.Body.transformToByteArray();
}

/** What the probe found, per client and bucket: a server's abilities do not change between store instances. */
const probes = new WeakMap<S3ClientLike, Map<string, Promise<boolean>>>();

function probedOnce(client: S3ClientLike, bucket: string, probe: () => Promise<boolean>): Promise<boolean> {
  const byBucket = getOrCreate(probes, client, () => new Map<string, Promise<boolean>>());
  return getOrCreate(byBucket, bucket, () => {
    const found = probe();
    found.catch(() => byBucket.delete(bucket)); // a failed probe (server down) is asked again
    return found;
  });
}

/** One client per distinct settings in this process: each holds a pool of keep-alive sockets. */
const clients = new Map<string, S3ClientLike>();

function makeClient(s3: S3Module, settings: S3ClientSettings): S3ClientLike {
  const key = JSON.stringify(settings);
  let client = clients.get(key);
  if (!client) {
    const { endpoint, region = "us-east-1", forcePathStyle = endpoint !== undefined, credentials } = settings;
    client = new s3.S3Client({
      region,
      forcePathStyle,
      ...(endpoint ? { endpoint } : {}),
      ...(credentials ? { credentials } : {}),
      // Our own retry (above) decides what is transient; the SDK's would multiply the attempts.
      maxAttempts: 1,
      // Checksums only where S3 requires them: many S3-compatible servers reject or ignore the newer ones.
      requestChecksumCalculation: "WHEN_REQUIRED",
      responseChecksumValidation: "WHEN_REQUIRED",
    });
    clients.set(key, client);
  }
  return client;
}

export function s3FileStore(options: S3FileStoreOptions): S3FileStore {
  return new S3FileStore(options);
}
