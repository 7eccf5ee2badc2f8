// The fs calls on numeric file descriptors, as promises: the catalog's entry and segment I/O is a few
// small calls per commit, where FileHandle's wrapper objects and its close bookkeeping are pure overhead.
import { close, fdatasync, ftruncate, open, read, readFile, write } from "node:fs";
import { promisify } from "node:util";

export const openAsync = promisify(open);
export const closeAsync = promisify(close);
export const readAsync = promisify(read);
/** The rest of a file from the descriptor's current position. */
export const readRestAsync = promisify(readFile);
export const writeAsync = promisify(write);
export const fdatasyncAsync = promisify(fdatasync);
export const ftruncateAsync = promisify(ftruncate);
