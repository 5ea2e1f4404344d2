/**
 * The envelope module (issue 37, docs/decisions/blind-server.md): what the reporter's
 * browser, the handlers' browsers, the server (sealing on arrival) and scripted clients
 * all use to seal and open case content and keys.
 *
 * Ground floor: imports nothing from src/, server/, machines/, React or Node; only
 * WebCrypto (`globalThis.crypto.subtle`) and hash-wasm (Argon2id in WebAssembly). No
 * primitive is written here. test/unit/core-crypto-*.test.ts prove the formats, the
 * server compatibility and every refusal.
 *
 * - field.ts    sealed fields (`1 ‖ nonce ‖ ct ‖ tag`), byte-compatible with the server
 * - file.ts     the STREAM file format: TransformStreams and a chunk sealer
 * - box.ts      sealed boxes to ECDH P-256 public keys, key ids
 * - kdf.ts      Argon2id / PBKDF2 and the choice between them
 * - reporter.ts reporter key and verifier; the data key wrapped to the reporter
 * - handler.ts  handler key pairs, their sealed private keys, recovery codes
 * - keylog.ts   the signed, hash-chained key log and its verification
 * - handler-wire.ts  what a handler's browser sends: the enrolment key bundle, the sign-in proof
 * - case.ts     a sealed case: recipients from the verified log, sealing, opening part by part
 * - epochs.ts   key epochs: the next data key after a revocation, the links between epochs' keys
 * - statistics.ts  the statistics key (its signed publication, its private half sealed to handlers), categories sealed to it, counted in the browser
 * - sealed-file.ts  a sealed case's files: padded, sealed for a tus upload, names, opening a download
 * - mail.ts     the reporter's notification address sealed to the server's mail key
 * - report.ts   what a new report seals as its details; the password handed over with an entered report
 * - record.ts   a sealed case's record of an oral report: versions with their hashes, comments
 * - note.ts     internal notes of a case's handlers, bound to note id and version
 * - draft.ts    a handler's unsent text kept on the device: sealed to the handler's own public key
 * - errors.ts   EnvelopeError and its reasons
 * - bytes.ts    UTF-8, base64, hex
 */
export * from './bytes.ts';
export * from './errors.ts';
export { NONCE_BYTES, TAG_BYTES } from './aead.ts';
export * from './field.ts';
export * from './file.ts';
export * from './box.ts';
export * from './kdf.ts';
export * from './reporter.ts';
export * from './handler.ts';
export * from './keylog.ts';
export * from './handler-wire.ts';
export * from './case.ts';
export * from './epochs.ts';
export * from './statistics.ts';
export { FILE_NAME_COLUMN, paddedSize, SealedFileError, sealFileName, openFileName, sealFileForUpload, openSealedFile, SealedFileSource, type SealedFileName, type SealedUpload } from './sealed-file.ts';
export * from './mail.ts';
export * from './record.ts';
export * from './note.ts';
export * from './draft.ts';
export * from './report.ts';
