// avsc's browser entry (CommonJS, untyped): bench/browser/avsc-peer.ts types what it uses.
declare module "avsc/etc/browser/avsc.js";
