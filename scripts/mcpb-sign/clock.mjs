// Loaded by scripts/release-cli.sh before `mcpb sign` (node --import):
// pins the clock of that process to SOURCE_DATE_EPOCH. node-forge writes
// `new Date()` into the PKCS #7 signingTime attribute of the signature, so
// without this every run would sign a bundle differently and the release
// would not be byte-reproducible. The signature itself (RSA PKCS #1 v1.5) is
// deterministic. This is the reproducible-builds convention (the time of
// the commit, not of the build), applied the only way the CLI allows.
const seconds = Number(process.env.SOURCE_DATE_EPOCH);
if (!Number.isSafeInteger(seconds) || seconds < 0) {
  throw new Error("clock.mjs: SOURCE_DATE_EPOCH must be set to a time in seconds");
}
const epoch = seconds * 1000;
const RealDate = globalThis.Date;
class SourceDate extends RealDate {
  constructor(...args) {
    if (args.length === 0) {
      super(epoch);
    } else {
      super(...args);
    }
  }
  static now() {
    return epoch;
  }
}
globalThis.Date = SourceDate;
