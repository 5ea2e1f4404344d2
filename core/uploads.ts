/**
 * The resumable uploads' addresses and session header: one wire contract for the SPA
 * (src/uploads/) and the server (server/uploads/resumable.ts), as core/pow.ts is
 * for the proof-of-work header.
 */
export const UPLOAD_SESSIONS_PATH = '/api/public/upload-sessions';
/** A signed-in reporter's session, bound to their case, for one message's files. */
export const CASE_UPLOAD_SESSIONS_PATH = '/api/private/case/upload-sessions';
export const UPLOADS_PATH = '/api/public/uploads';
export const UPLOAD_SESSION_HEADER = 'x-upload-session';
