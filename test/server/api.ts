/** Small helpers for calling the real server in tests: JSON calls, multipart bodies, data-folder checks. */
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import type { TestServer } from '../helpers/server.ts';
import { POW_HEADER, proofHeader, solve, type PowChallenge } from '../../core/pow.ts';

/** Fetches a challenge and solves it, as a scripted client does (docs/api.md): the `X-Proof-Of-Work` header. */
export async function solveChallenge(server: { url: string }, headers: Record<string, string> = {}): Promise<Record<string, string>> {
  const res = await fetch(`${server.url}/api/public/pow/challenge`, { headers });
  if (res.status !== 200) throw new Error(`no challenge: HTTP ${res.status}`);
  const c = (await res.json()) as PowChallenge;
  return { [POW_HEADER]: proofHeader({ challenge: c.challenge, nonce: solve(c.challenge, c.difficulty)! }) };
}

/** Public calls that change state need a solved challenge (server/security/abuse.ts). */
export const needsProof = (method: string, p: string) =>
  method !== 'GET' && method !== 'HEAD' && p.startsWith('/api/public/') && p !== '/api/public/uploads' && !p.startsWith('/api/public/uploads/');

export const PDF = Buffer.from('%PDF-1.4\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n');
export const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082', 'hex');

export function caseDto(officerId: string, over: Record<string, unknown> = {}) {
  return {
    whistleblowerRelation: 'Employee',
    protectionOfficer: { id: officerId },
    description: 'Someone took money from the till.',
    violation: 'THEFT',
    repeatedViolations: false,
    reportedPersons: [{ name: 'John Doe', jobTitle: 'Cashier', phoneOrEmail: 'john@example.com' }],
    caseAccount: { follow: true, password: 'pass1234' },
    ...over,
  };
}

export function oralDto(officerId: string, over: Record<string, unknown> = {}) {
  return { whistleblowerRelation: 'Supplier', protectionOfficer: { id: officerId }, caseAccount: { follow: true, password: 'pass1234' }, ...over };
}

export interface UploadFile {
  name: string;
  bytes: Buffer | string;
  type?: string;
}

export function form(jsonField: string, json: unknown | undefined, files: UploadFile[] = [], opts: { jsonAsFile?: boolean; jsonFirst?: boolean } = {}) {
  const fd = new FormData();
  const addJson = () => {
    if (json === undefined) return;
    const text = typeof json === 'string' ? json : JSON.stringify(json);
    if (opts.jsonAsFile) fd.append(jsonField, new Blob([text], { type: 'application/json' }), 'blob');
    else fd.append(jsonField, text);
  };
  if (opts.jsonFirst !== false) addJson();
  for (const f of files) fd.append('files', new Blob([f.bytes as BlobPart], { type: f.type ?? 'application/octet-stream' }), f.name);
  if (opts.jsonFirst === false) addJson();
  return fd;
}

export async function call(
  server: TestServer,
  method: string,
  p: string,
  opts: { host?: string; json?: unknown; body?: BodyInit; token?: string; headers?: Record<string, string>; /** false: send no proof-of-work */ pow?: boolean } = {},
) {
  const headers: Record<string, string> = { ...(opts.pow !== false && needsProof(method, p) ? await solveChallenge(server) : {}), ...(opts.headers ?? {}) };
  if (opts.host) headers['x-company-host'] = opts.host;
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let body = opts.body;
  if (opts.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = typeof opts.json === 'string' ? opts.json : JSON.stringify(opts.json);
  }
  const res = await fetch(`${server.url}${p}`, { method, headers, body });
  const text = await res.text();
  let data: any = undefined;
  try {
    data = text ? JSON.parse(text) : undefined;
  } catch {
    data = text;
  }
  return { status: res.status, headers: res.headers, data };
}

/** Every file below `dir`, recursively. */
export function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) out.push(...listFiles(p));
    else out.push(p);
  }
  return out;
}

export async function countRows(server: TestServer) {
  const db = server.ctx.db;
  const n = async (t: 'report_case' | 'case_file' | 'case_account' | 'case_status_event' | 'case_message') =>
    Number((await db.selectFrom(t).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  return { cases: await n('report_case'), files: await n('case_file'), accounts: await n('case_account'), events: await n('case_status_event'), messages: await n('case_message') };
}

/** The file store holds exactly `n` final files and no temporaries (case keys are counted by expectCaseKeys). */
export function expectStoredFiles(server: TestServer, n: number) {
  const root = server.ctx.config.filesDir!;
  const all = listFiles(root)
    .map((f) => path.relative(root, f))
    .filter((f) => !f.startsWith(`keys${path.sep}`));
  expect(all.filter((f) => f.startsWith(`tmp${path.sep}`))).toEqual([]);
  expect(all.length).toBe(n);
}

/** One key file per case or upload session's case, and none for a submission that was refused (server/crypto/case-keys.ts). */
export async function expectCaseKeys(server: TestServer) {
  const root = path.join(server.ctx.config.filesDir!, 'keys');
  const onDisk = listFiles(root).map((f) => path.basename(f)).sort();
  const cases = await server.ctx.db.selectFrom('report_case').select('id').execute();
  const sessions = await server.ctx.db.selectFrom('upload_session').select('case_id').execute();
  expect(onDisk).toEqual([...new Set([...cases.map((r) => r.id), ...sessions.map((r) => r.case_id)])].sort());
}

export function expectError(res: { status: number; data: any }, status: number, code: string, field?: string) {
  expect({ status: res.status, code: res.data?.error?.code }).toEqual({ status, code });
  expect(typeof res.data.error.message).toBe('string');
  if (field !== undefined) expect(res.data.error.field).toBe(field);
}
