// avsc's types-only browser entry (CommonJS, untyped): what the bench's peer uses of it.
declare module "avsc/etc/browser/avsc-types.js";
