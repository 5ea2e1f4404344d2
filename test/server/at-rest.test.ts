/**
 * Encryption at rest: after a case with distinctive texts and file content has
 * gone through every path that stores reporter or handler text, no byte sequence
 * of those texts is found anywhere in the raw data folder (database files and file
 * store). A positive control proves the scan would find plain text: the case
 * number, stored in clear, is found in the PGlite folder.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addCompany } from './fixtures/company.ts';
import { call, caseDto, form, listFiles, oralDto } from './api.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';

const MARKERS = {
  description: 'Zebracorn embezzlement 4711',
  relation: 'Quartermaster of wombats',
  whistleblower: 'Quentin Xylophonesen',
  email: 'quentin.xylophonesen@example.org',
  person: 'Ottoline Fraudmeister',
  fileName: 'kvitteringer-hemmelige',
  fileContent: 'FILE-CONTENT-MARKER-9a8b7c6d',
  message: 'Handler-question-marker-ZZ',
  report: 'Oral-report-marker-QQ',
};

let server: TestServer;
let caseNumber: string;

beforeAll(async () => {
  server = await startTestServer({ seedDemo: false });
  const officer = (await addCompany(server.ctx.db, { hosts: ['acme.test'] })).officerIds[0]!;
  const token = (await createHandlerAccount(server.ctx.db, 'acme', 'h')).token;
  const created = await call(server, 'POST', '/api/public/case/new/by-form', {
    host: 'acme.test',
    body: form(
      'caseDto',
      caseDto(officer, {
        description: MARKERS.description,
        whistleblowerRelation: MARKERS.relation,
        whistleblower: { name: MARKERS.whistleblower, email: MARKERS.email },
        reportedPersons: [{ name: MARKERS.person, jobTitle: 'CFO', phoneOrEmail: '+4512345678' }],
      }),
      // Large enough to span several encrypted chunks.
      [{ name: `${MARKERS.fileName}.txt`, bytes: `${MARKERS.fileContent}\n`.repeat(20_000) }],
    ),
  });
  expect(created.status).toBe(201);
  caseNumber = created.data.caseDto.caseNumber;
  const msg = await call(server, 'POST', `/api/handler/cases/${caseNumber}/messages`, {
    token,
    body: form('messageDto', { message: MARKERS.message }, [{ name: 'more.txt', bytes: MARKERS.fileContent }]),
  });
  expect(msg.status).toBe(201);
  const phone = await call(server, 'POST', '/api/public/case/new/by-phone', { host: 'acme.test', json: oralDto(officer, { whistleblower: { name: MARKERS.whistleblower, email: MARKERS.email } }) });
  expect((await call(server, 'PUT', `/api/handler/cases/${phone.data.caseDto.caseNumber}/report`, { token, json: { text: MARKERS.report } })).status).toBe(200);
  // Everything reads back in clear through the API...
  const view = await call(server, 'GET', `/api/handler/cases/${caseNumber}`, { token });
  expect(view.data.description).toBe(MARKERS.description);
  expect(view.data.whistleblower.name).toBe(MARKERS.whistleblower);
  // ...then the server stops, so the database has written everything to its folder.
  await server.stop();
});
afterAll(async () => server?.cleanup());

describe('data at rest', () => {
  it('holds none of the texts or file contents in clear, anywhere in the data folder', () => {
    const files = listFiles(server.dataDir);
    expect(files.length).toBeGreaterThan(3);
    const found: string[] = [];
    for (const f of files) {
      const bytes = readFileSync(f);
      for (const [what, marker] of Object.entries(MARKERS)) {
        for (const enc of ['utf8', 'utf16le'] as const) {
          if (bytes.includes(Buffer.from(marker, enc))) found.push(`${what} (${enc}) in ${f}`);
        }
      }
    }
    expect(found).toEqual([]);
  });

  it('would find clear text: the case number, stored in clear, is in the database folder', () => {
    if (server.ctx.dbKind !== 'pglite') return; // PostgreSQL keeps its files elsewhere
    const hits = listFiles(server.ctx.pgliteDir!).filter((f) => readFileSync(f).includes(Buffer.from(caseNumber)));
    expect(hits.length).toBeGreaterThan(0);
  });
});
