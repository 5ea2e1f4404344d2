/**
 * The server's second look at hidden data (docs/decisions/metadata-removal.md):
 * images and PDFs that still carry metadata are flagged, by kind, in the file's
 * details on the handler API; cleaned ones show [], other types null.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addCompany } from './fixtures/company.ts';
import { call, caseDto, form } from './api.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';
import { cleanFile } from '../../core/metadata/scan.ts';
import { jpegWithExif, pdfWithAuthor } from '../fixtures/metadata-files.ts';

let server: TestServer;
let officer: string;
let token: string;

beforeAll(async () => {
  server = await startTestServer({ seedDemo: false });
  officer = (await addCompany(server.ctx.db, { id: 'acme', hosts: ['acme.test'] })).officerIds[0]!;
  token = (await createHandlerAccount(server.ctx.db, 'acme', 'Hanne Handler')).token;
});
afterAll(async () => server?.cleanup());

describe('metadata still in received files', () => {
  it('flags what a client left in, and shows [] for a cleaned file and null for an unchecked type', async () => {
    const jpeg = jpegWithExif();
    const pdf = await pdfWithAuthor();
    const cleanJpeg = (await cleanFile(jpeg)).bytes;
    const res = await call(server, 'POST', '/api/public/case/new/by-form', {
      host: 'acme.test',
      body: form('caseDto', caseDto(officer), [
        { name: 'photo.jpg', bytes: Buffer.from(jpeg) },
        { name: 'minutes.pdf', bytes: Buffer.from(pdf) },
        { name: 'clean.jpg', bytes: Buffer.from(cleanJpeg) },
        { name: 'notes.txt', bytes: 'plain words\n' },
      ]),
    });
    expect(res.status).toBe(201);
    const c = await call(server, 'GET', `/api/handler/cases/${res.data.caseDto.caseNumber}`, { token });
    const byName = Object.fromEntries((c.data.files as { name: string; metadataRemaining: string[] | null }[]).map((f) => [f.name, f.metadataRemaining]));
    expect(byName['photo.jpg']).toEqual(expect.arrayContaining(['location', 'device', 'serialNumber', 'author']));
    expect(byName['minutes.pdf']).toEqual(expect.arrayContaining(['author', 'software']));
    expect(byName['clean.jpg']).toEqual([]);
    expect(byName['notes.txt']).toBeNull();
    // Kinds only: the values themselves are never stored beside the file.
    const rows = await server.ctx.db.selectFrom('case_file').select('metadata_remaining').execute();
    expect(JSON.stringify(rows)).not.toContain('Jane');
  });
});
