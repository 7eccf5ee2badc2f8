// `zlib` for avsc's browser entry in the bench page: the browser peer runs the null codec only, so
// avsc's deflate is never called here (a call says so rather than compressing nothing).
const missing = () => {
  throw new Error("the bench's browser avsc peer has no zlib: measure deflate in Node");
};
module.exports = { deflateRaw: missing, inflateRaw: missing };
