import { deriveReporterKeys } from '../../core/crypto/index.ts';
import { NATIVE_KDF } from '../../server/cases/reporter-keys.ts';
import { existsSync, readdirSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../machines/schema.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addCompany, PNG_BYTES, SVG_BYTES } from './fixtures/company.ts';
import { call, caseDto, countRows, expectCaseKeys, expectError, expectStoredFiles, form, oralDto, PDF, PNG, solveChallenge } from './api.ts';

let server: TestServer;
let officers: string[];
const HOST = 'acme.test';

beforeAll(async () => {
  server = await startTestServer({ seedDemo: false });
  officers = (await addCompany(server.ctx.db, { id: 'acme', hosts: [HOST, 'www.acme.test'], officers: 2, subsidiaries: 2 })).officerIds;
  await addCompany(server.ctx.db, { id: 'other', hosts: ['other.test'] });
});
afterAll(async () => server?.cleanup());

describe('company info and tenancy', () => {
  it('answers the officers and subsidiaries of the company named by X-Company-Host', async () => {
    const res = await call(server, 'GET', '/api/public/case/company-info', { host: HOST });
    expect(res.status).toBe(200);
    expect(res.data.subsidiaries).toEqual([{ id: 'sub-1', name: 'Subsidiary 1' }, { id: 'sub-2', name: 'Subsidiary 2' }]);
    expect(res.data.protectionOfficers).toHaveLength(2);
    expect(res.data.protectionOfficers[0]).toEqual({
      id: officers[0],
      name: 'Officer 1',
      jobTitle: 'Lawyer',
      company: 'Law & Co',
      phone: '+4512345678',
      customerRelation: 'INTERNAL',
      logoUrl: `/api/public/case/protection-officer/${officers[0]}/logo`,
    });
    expect(res.data.protectionOfficers[1].logoUrl).toBeNull();
  });

  it('drops the port and case of the host name, and falls back to Host', async () => {
    expect((await call(server, 'GET', '/api/public/case/company-info', { host: 'WWW.Acme.TEST:8443' })).status).toBe(200);
    const viaHost = await getWithHost(`${HOST}:${server.port}`, '/api/public/case/company-info');
    expect(viaHost.status).toBe(200);
    expect(JSON.parse(viaHost.body).subsidiaries).toHaveLength(2);
    const other = await call(server, 'GET', '/api/public/case/company-info', { host: 'other.test' });
    expect(other.data.subsidiaries).toEqual([]);
  });

  it('answers 404 UNKNOWN_COMPANY for a host no company has', async () => {
    expectError(await call(server, 'GET', '/api/public/case/company-info', { host: 'nobody.test' }), 404, 'UNKNOWN_COMPANY');
    expectError(await call(server, 'GET', '/api/public/site-look-and-feel/language/en', { host: 'nobody.test' }), 404, 'UNKNOWN_COMPANY');
    // The test server's own address is no company's host either.
    expectError(await call(server, 'GET', '/api/public/case/company-info'), 404, 'UNKNOWN_COMPANY');
  });
});

describe('look and feel and images', () => {
  it('answers the look and feel for an offered language', async () => {
    const res = await call(server, 'GET', '/api/public/site-look-and-feel/language/en', { host: HOST });
    expect(res.status).toBe(200);
    expect(res.data).toMatchObject({
      languageCode: 'en',
      languageName: 'English',
      defaultLanguage: 'da',
      availableLanguages: ['da', 'en'],
      supportLanguages: [{ languageCode: 'da', languageName: 'Dansk' }, { languageCode: 'en', languageName: 'English' }],
      siteColors: { primaryColorCode: '#172a55', secondaryColorCode: '#ecf1f5', infoColorCode: '#ffffff' },
      contactPhone: '+45 70 20 30 40',
      siteFrontPage: { heading: 'Whistleblower scheme', showVerbalOption: true, showBookingOption: false },
      phoneCodes: { da: 'DK', en: 'GB' },
    });
    expect(res.data.siteAboutPages.map((p: any) => p.aboutPageType)).toEqual(['PERSONAL_DATA', 'ANONYMITY', 'CASE_MANAGEMENT']);
    expect(res.data.logoFileName).toMatch(/^acme-[0-9a-f]{12}\.png$/);
  });

  it('answers 404 for a language the company does not offer', async () => {
    expectError(await call(server, 'GET', '/api/public/site-look-and-feel/language/pl', { host: HOST }), 404, 'UNKNOWN_LANGUAGE');
    expectError(await call(server, 'GET', '/api/public/site-look-and-feel/language/xx', { host: HOST }), 404, 'UNKNOWN_LANGUAGE');
  });

  it('answers the company default language instead, for a first visit in a language it does not offer (?orDefault=true)', async () => {
    const res = await call(server, 'GET', '/api/public/site-look-and-feel/language/pl?orDefault=true', { host: HOST });
    expect(res.status).toBe(200);
    expect(res.data).toMatchObject({ languageCode: 'da', defaultLanguage: 'da' });
    const offered = await call(server, 'GET', '/api/public/site-look-and-feel/language/en?orDefault=true', { host: HOST });
    expect(offered.data.languageCode).toBe('en');
  });

  it('serves the company logo with its content type and nosniff; only to its own company', async () => {
    const lf = await call(server, 'GET', '/api/public/site-look-and-feel/language/da', { host: HOST });
    const res = await fetch(`${server.url}/api/public/site-look-and-feel/logo/${lf.data.logoFileName}`, { headers: { 'x-company-host': HOST } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(Buffer.from(await res.arrayBuffer()).equals(PNG_BYTES)).toBe(true);
    expectError(await call(server, 'GET', `/api/public/site-look-and-feel/logo/${lf.data.logoFileName}`, { host: 'other.test' }), 404, 'NOT_FOUND');
    expectError(await call(server, 'GET', '/api/public/site-look-and-feel/logo/nope.png', { host: HOST }), 404, 'NOT_FOUND');
  });

  it('serves a protection officer logo; an officer without one answers 404', async () => {
    const res = await fetch(`${server.url}/api/public/case/protection-officer/${officers[0]}/logo`, { headers: { 'x-company-host': HOST } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/svg+xml');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toContain('sandbox');
    expect(Buffer.from(await res.arrayBuffer()).equals(SVG_BYTES)).toBe(true);
    expectError(await call(server, 'GET', `/api/public/case/protection-officer/${officers[1]}/logo`, { host: HOST }), 404, 'NOT_FOUND');
    expectError(await call(server, 'GET', `/api/public/case/protection-officer/${officers[0]}/logo`, { host: 'other.test' }), 404, 'NOT_FOUND');
  });
});

describe('hostile input never gets a 5xx', () => {
  it('NUL bytes and odd characters in paths and headers', async () => {
    for (const p of ['/api/public/site-look-and-feel/logo/a%00b.png', '/api/public/case/protection-officer/%00/logo', '/api/public/site-look-and-feel/language/%00', '/api/public/site-look-and-feel/logo/..%2F..%2Fetc%2Fpasswd']) {
      const res = await call(server, 'GET', p, { host: HOST });
      expect(res.status, p).toBe(404);
      expect(res.data.error.code).toBeTruthy();
    }
    expectError(await call(server, 'GET', '/api/public/case/company-info', { host: '\u00fc.test' }), 404, 'UNKNOWN_COMPANY');
    expectError(await call(server, 'GET', '/api/public/case/company-info', { host: 'x'.repeat(5000) }), 404, 'UNKNOWN_COMPANY');
  });

  it('NUL bytes inside the report are accepted and kept (they are encrypted, never raw SQL text)', async () => {
    const res = await call(server, 'POST', '/api/public/case/new/by-form', { host: HOST, body: form('caseDto', caseDto(officers[0]!, { description: 'a\u0000b', whistleblowerRelation: 'x\u0000' })) });
    expect(res.status).toBe(201);
    const bad = await call(server, 'POST', '/api/public/case/new/by-phone', { host: HOST, json: oralDto(officers[0]!, { subsidiary: '\u0000' }) });
    expectError(bad, 400, 'UNKNOWN_SUBSIDIARY');
  });
});

describe('new case by form', () => {
  const post = (body: FormData, host = HOST) => call(server, 'POST', '/api/public/case/new/by-form', { host, body });

  it('creates an online case with files and a follow account; status RECEIVED', async () => {
    const before = await countRows(server);
    const res = await post(
      form('caseDto', caseDto(officers[0]!, { subsidiary: 'sub-2', whistleblower: { name: 'Ann Reporter', email: 'ann@example.com', notification: true } }), [
        { name: 'evidence.pdf', bytes: PDF },
        { name: 'notes.txt', bytes: 'plain text notes, æøå' },
        { name: 'photo.PNG', bytes: PNG },
      ]),
    );
    expect(res.status).toBe(201);
    expect(res.data.caseDto).toEqual({ caseNumber: expect.stringMatching(/^[1-9]\d{15}$/), status: 'RECEIVED', created: expect.any(String), submission: { type: 'ONLINE_FORM' } });
    expect(Math.abs(Date.parse(res.data.caseDto.created) - Date.now())).toBeLessThan(60_000);
    const after = await countRows(server);
    expect(after.cases - before.cases).toBe(1);
    expect(after.files - before.files).toBe(3);
    expect(after.accounts - before.accounts).toBe(1);
    const row = await server.ctx.db.selectFrom('report_case').selectAll().where('case_number', '=', res.data.caseDto.caseNumber).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ company_id: 'acme', status: 'RECEIVED', submission_type: 'ONLINE_FORM', creation_channel: 'BY_ONLINE_FORM', subsidiary_id: 'sub-2' });
    const files = await server.ctx.db.selectFrom('case_file').select(['mime_type', 'size']).where('case_id', '=', row.id).orderBy('mime_type').execute();
    expect(files.map((f) => [f.mime_type, Number(f.size)])).toEqual([
      ['application/pdf', PDF.length],
      ['image/png', PNG.length],
      ['text/plain', Buffer.byteLength('plain text notes, æøå')],
    ]);
    expectStoredFiles(server, after.files);
    await expectCaseKeys(server);
  });

  it('takes caseDto as a field with Content-Type: application/json (curl -F "caseDto=…;type=application/json")', async () => {
    const boundary = 'XyZ123';
    const raw = (json: string) =>
      `--${boundary}\r\nContent-Disposition: form-data; name="caseDto"\r\nContent-Type: application/json\r\n\r\n${json}\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="a.pdf"\r\nContent-Type: application/pdf\r\n\r\n${PDF.toString('latin1')}\r\n--${boundary}--\r\n`;
    const headers = { 'content-type': `multipart/form-data; boundary=${boundary}` };
    const ok = await call(server, 'POST', '/api/public/case/new/by-form', { host: HOST, headers, body: raw(JSON.stringify(caseDto(officers[0]!))) });
    expect(ok.status).toBe(201);
    const before = await countRows(server);
    expectError(await call(server, 'POST', '/api/public/case/new/by-form', { host: HOST, headers, body: raw('{"broken":') }), 400, 'BAD_JSON');
    expect(await countRows(server)).toEqual(before);
    expectStoredFiles(server, before.files);
    await expectCaseKeys(server);
  });

  it('takes the parts in any order, caseDto as a file part, and no files at all', async () => {
    const a = await post(form('caseDto', caseDto(officers[0]!), [{ name: 'a.csv', bytes: 'x;y\n1;2\n' }], { jsonFirst: false, jsonAsFile: true }));
    expect(a.status).toBe(201);
    const b = await post(form('caseDto', caseDto(officers[1]!, { caseAccount: { follow: false }, reportedPersons: [], reportedUnit: 'Purchasing' })));
    expect(b.status).toBe(201);
    expect(b.data.caseDto.caseNumber).not.toBe(a.data.caseDto.caseNumber);
    const row = await server.ctx.db.selectFrom('report_case').select('id').where('case_number', '=', b.data.caseDto.caseNumber).executeTakeFirstOrThrow();
    expect(await server.ctx.db.selectFrom('case_account').select('case_id').where('case_id', '=', row.id).executeTakeFirst()).toBeUndefined();
  });

  describe('refuses bad input with a 4xx and leaves nothing behind', () => {
    const cases: [string, () => FormData | string, number, string, string?][] = [
      ['bad JSON in caseDto', () => form('caseDto', '{"description": ', [{ name: 'a.pdf', bytes: PDF }]), 400, 'BAD_JSON', 'caseDto'],
      ['a missing caseDto part', () => form('caseDto', undefined, [{ name: 'a.pdf', bytes: PDF }]), 400, 'MISSING_PART', 'caseDto'],
      ['a wrong type', () => form('caseDto', caseDto('x', { repeatedViolations: 'yes' }), [{ name: 'a.pdf', bytes: PDF }]), 400, 'VALIDATION', 'repeatedViolations'],
      ['an unknown violation', () => form('caseDto', caseDto('x', { violation: 'SPEEDING' })), 400, 'VALIDATION', 'violation'],
      ['a description over 200 characters', () => form('caseDto', caseDto('x', { description: 'x'.repeat(LIMITS.descriptionMax + 1) }), [{ name: 'a.pdf', bytes: PDF }]), 400, 'VALIDATION', 'description'],
      ['a password under 4 characters', () => form('caseDto', caseDto('x', { caseAccount: { follow: true, password: 'abc' } })), 400, 'VALIDATION', 'caseAccount.password'],
      ['a bad e-mail', () => form('caseDto', caseDto('x', { whistleblower: { name: 'A', email: 'not-an-email' } })), 400, 'VALIDATION', 'whistleblower.email'],
      ['a bad person contact', () => form('caseDto', caseDto('x', { reportedPersons: [{ name: 'A', jobTitle: 'B', phoneOrEmail: '12' }] })), 400, 'VALIDATION', 'reportedPersons.0.phoneOrEmail'],
      ['a Danish number one digit short', () => form('caseDto', caseDto('x', { reportedPersons: [{ name: 'A', jobTitle: 'B', phoneOrEmail: '+451234567' }] })), 400, 'VALIDATION', 'reportedPersons.0.phoneOrEmail'],
      ['a Danish number one digit long', () => form('caseDto', caseDto('x', { reportedPersons: [{ name: 'A', jobTitle: 'B', phoneOrEmail: '+45123456789' }] })), 400, 'VALIDATION', 'reportedPersons.0.phoneOrEmail'],
      ['too many files', () => form('caseDto', caseDto('x'), Array.from({ length: LIMITS.maxFiles + 1 }, (_, i) => ({ name: `f${i}.pdf`, bytes: PDF }))), 400, 'TOO_MANY_FILES', 'files'],
      ['a forbidden file type', () => form('caseDto', caseDto('x'), [{ name: 'a.pdf', bytes: PDF }, { name: 'run.exe', bytes: 'MZ' }]), 415, 'FORBIDDEN_FILE_TYPE', 'files.1'],
      ['a file without extension', () => form('caseDto', caseDto('x'), [{ name: 'README', bytes: 'hello' }]), 415, 'FORBIDDEN_FILE_TYPE', 'files.0'],
      ['a .pdf whose bytes are a PNG', () => form('caseDto', caseDto('x'), [{ name: 'a.txt', bytes: 'fine' }, { name: 'b.pdf', bytes: PNG }]), 415, 'FILE_CONTENT_MISMATCH', 'files.1'],
      ['a .txt with NUL bytes', () => form('caseDto', caseDto('x'), [{ name: 'a.txt', bytes: Buffer.from([0x41, 0, 0x42]) }]), 415, 'FILE_CONTENT_MISMATCH', 'files.0'],
      ['a .csv that is not UTF-8', () => form('caseDto', caseDto('x'), [{ name: 'a.csv', bytes: Buffer.from([0x41, 0xff, 0xfe, 0x42]) }]), 415, 'FILE_CONTENT_MISMATCH', 'files.0'],
      ['an unknown part', () => { const f = form('caseDto', caseDto('x')); f.append('extra', 'x'); return f; }, 400, 'UNKNOWN_PART'],
      ['caseDto sent twice', () => { const f = form('caseDto', caseDto('x')); f.append('caseDto', '{}'); return f; }, 400, 'DUPLICATE_PART', 'caseDto'],
    ];
    for (const [what, body, status, code, field] of cases) {
      it(what, async () => {
        const before = await countRows(server);
        expectError(await post(body() as FormData), status, code, field);
        expect(await countRows(server)).toEqual(before);
        expectStoredFiles(server, before.files);
      });
    }

    it('a validation error lists every bad field in plain English words, the first as `field` (issue 42)', async () => {
      const res = await post(
        form('caseDto', caseDto(officers[0]!, {
          description: '',
          repeatedViolations: 'yes',
          caseAccount: { follow: true, password: 'ab' },
          whistleblower: { name: 'A', email: 'not-an-email', phone: '+459876' },
          reportedPersons: [{ name: 'A', jobTitle: '', phoneOrEmail: '12' }],
        })),
      );
      expect(res.status).toBe(400);
      const { error } = res.data;
      expect(error.code).toBe('VALIDATION');
      expect(error.fields).toEqual([
        { field: 'whistleblower.email', message: 'must be a valid e-mail address (at most 254 characters)', rule: 'validation.email' },
        { field: 'whistleblower.phone', message: 'must be a Danish number written +45 and 8 digits', rule: 'validation.phoneDanish' },
        { field: 'repeatedViolations', message: 'must be a boolean', rule: 'validation.invalid' },
        { field: 'caseAccount.password', message: 'must contain at least 4 characters', rule: 'validation.passwordMin' },
        { field: 'reportedPersons.0.jobTitle', message: 'is required', rule: 'validation.required' },
        { field: 'reportedPersons.0.phoneOrEmail', message: 'must be a valid e-mail address or a phone number such as +4512345678', rule: 'validation.phoneOrEmail' },
        // Empty is allowed with a voice message (issue 40): the rule spans two fields, so it comes last.
        { field: 'description', message: 'is required', rule: 'validation.required' },
      ]);
      expect(error.field).toBe('whistleblower.email');
      expect(error.message).toBe(
        '7 fields are not valid: caseDto.whistleblower.email must be a valid e-mail address (at most 254 characters); caseDto.whistleblower.phone must be a Danish number written +45 and 8 digits; ' +
          'caseDto.repeatedViolations must be a boolean; caseDto.caseAccount.password must contain at least 4 characters; ' +
          'caseDto.reportedPersons.0.jobTitle is required; caseDto.reportedPersons.0.phoneOrEmail must be a valid e-mail address or a phone number such as +4512345678; caseDto.description is required.',
      );
      // Words, not catalogue keys; nothing of what was sent.
      expect(error.message).not.toMatch(/validation\.|not-an-email|\+459876/);
      // One bad field: one sentence; a rule about the whole report names its field.
      const one = await post(form('caseDto', caseDto(officers[0]!, { description: '' })));
      expect(one.data.error).toMatchObject({ message: 'caseDto.description is required.', field: 'description', fields: [{ field: 'description', rule: 'validation.required' }] });
      const nobody = await post(form('caseDto', caseDto(officers[0]!, { reportedPersons: [], reportedUnit: '' })));
      expect(nobody.data.error).toMatchObject({ field: 'reportedPersons', fields: [{ field: 'reportedPersons', rule: 'validation.reportRelated' }] });
      const missing = await call(server, 'POST', '/api/public/case/new/by-phone', { host: HOST, json: {} });
      expect(missing.data.error.fields.map((f: { field: string; message: string }) => `${f.field} ${f.message}`)).toEqual([
        'whistleblowerRelation is required',
        'protectionOfficer is required',
        'caseAccount is required',
      ]);
    });

    it('an unknown officer or subsidiary', async () => {
      const before = await countRows(server);
      expectError(await post(form('caseDto', caseDto('7d4c7b1e-6f0c-4a53-9d8e-2f4c2b1a0e9f'), [{ name: 'a.pdf', bytes: PDF }])), 400, 'UNKNOWN_OFFICER', 'protectionOfficer.id');
      expectError(await post(form('caseDto', caseDto(officers[0]!, { subsidiary: 'nope' }), [{ name: 'a.pdf', bytes: PDF }])), 400, 'UNKNOWN_SUBSIDIARY', 'subsidiary');
      // Another company's officer is unknown here.
      const other = (await call(server, 'GET', '/api/public/case/company-info', { host: 'other.test' })).data.protectionOfficers[0].id;
      expectError(await post(form('caseDto', caseDto(other))), 400, 'UNKNOWN_OFFICER');
      expect(await countRows(server)).toEqual(before);
      expectStoredFiles(server, before.files);
    });

    it('an oversized caseDto, as a file part and as a field', async () => {
      const before = await countRows(server);
      const big = JSON.stringify(caseDto(officers[0]!, { reportedUnit: 'u'.repeat(300 * 1024) }));
      expectError(await post(form('caseDto', big, [{ name: 'a.pdf', bytes: PDF }], { jsonAsFile: true })), 413, 'PART_TOO_LARGE', 'caseDto');
      expectError(await post(form('caseDto', big, [{ name: 'a.pdf', bytes: PDF }])), 413, 'PART_TOO_LARGE', 'caseDto');
      expect(await countRows(server)).toEqual(before);
      expectStoredFiles(server, before.files);
    });

    it('a JSON body instead of multipart, and an unknown host', async () => {
      expectError(await call(server, 'POST', '/api/public/case/new/by-form', { host: HOST, json: caseDto(officers[0]!) }), 415, 'NOT_MULTIPART');
      expectError(await post(form('caseDto', caseDto(officers[0]!)), 'nobody.test'), 404, 'UNKNOWN_COMPANY');
    });

    it('a broken multipart body', async () => {
      const res = await call(server, 'POST', '/api/public/case/new/by-form', {
        host: HOST,
        headers: { 'content-type': 'multipart/form-data; boundary=XYZ' },
        body: '--XYZ\r\nContent-Disposition: form-data; name="files"; filename="a.pdf"\r\n\r\n%PDF-1.4 and then it just stops',
      });
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(res.data.error.code).toBeTruthy();
      await waitForNoTemps();
    });
  });

  it('an aborted upload leaves no rows and no files', async () => {
    const before = await countRows(server);
    const boundary = 'AbortBoundary';
    const head =
      `--${boundary}\r\nContent-Disposition: form-data; name="caseDto"\r\n\r\n${JSON.stringify(caseDto(officers[0]!))}\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="big.txt"\r\nContent-Type: text/plain\r\n\r\n`;
    const proof = Object.entries(await solveChallenge(server)).map(([k, v]) => `${k}: ${v}\r\n`).join('');
    const socket = net.connect(server.port, '127.0.0.1');
    await new Promise<void>((r) => socket.once('connect', () => r()));
    socket.write(
      `POST /api/public/case/new/by-form HTTP/1.1\r\nHost: ${HOST}\r\n${proof}Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: 10000000\r\n\r\n` + head,
    );
    // Send part of the file, wait until the server has started writing it, then hang up.
    socket.write('a'.repeat(300_000));
    await waitFor(() => countTemps() > 0, 'a temporary upload to appear');
    socket.destroy();
    await waitForNoTemps();
    expect(await countRows(server)).toEqual(before);
    expectStoredFiles(server, before.files);
  });
});

describe('file size limit', () => {
  let small: TestServer;
  let officer: string;
  beforeAll(async () => {
    small = await startTestServer({ seedDemo: false, maxFileBytes: 1000 });
    officer = (await addCompany(small.ctx.db, { hosts: [HOST] })).officerIds[0]!;
  });
  afterAll(async () => small?.cleanup());

  it('refuses a file over the limit with 413 and keeps nothing; a file at the limit passes', async () => {
    const over = await call(small, 'POST', '/api/public/case/new/by-form', { host: HOST, body: form('caseDto', caseDto(officer), [{ name: 'a.txt', bytes: 'x'.repeat(1001) }]) });
    expectError(over, 413, 'FILE_TOO_LARGE', 'files.0');
    expect((await countRows(small)).cases).toBe(0);
    expectStoredFiles(small, 0);
    const at = await call(small, 'POST', '/api/public/case/new/by-form', { host: HOST, body: form('caseDto', caseDto(officer), [{ name: 'a.txt', bytes: 'x'.repeat(1000) }]) });
    expect(at.status).toBe(201);
    expectStoredFiles(small, 1);
  });
});

describe('new case by phone and by meeting', () => {
  for (const [path, type] of [['by-phone', 'PHONE'], ['by-meeting', 'MEETING']] as const) {
    it(`${path} starts PENDING_WHISTLEBLOWER_CONTACT with a follow account`, async () => {
      const res = await call(server, 'POST', `/api/public/case/new/${path}`, { host: HOST, json: oralDto(officers[1]!, { whistleblower: { name: 'Bo', email: 'bo@example.com', phone: '+4587654321' } }) });
      expect(res.status).toBe(201);
      expect(res.data.caseDto).toMatchObject({ status: 'PENDING_WHISTLEBLOWER_CONTACT', submission: { type } });
      const row = await server.ctx.db.selectFrom('report_case').selectAll().where('case_number', '=', res.data.caseDto.caseNumber).executeTakeFirstOrThrow();
      expect(row.creation_channel).toBe('BY_PHONE');
      const events = await server.ctx.db.selectFrom('case_status_event').select('status').where('case_id', '=', row.id).execute();
      expect(events.map((e) => e.status)).toEqual(['PENDING_WHISTLEBLOWER_CONTACT']);
      const account = await server.ctx.db.selectFrom('case_account').selectAll().where('case_id', '=', row.id).executeTakeFirstOrThrow();
      expect(account.password_hash).toMatch(/^\$argon2id\$/);
      expect(account.password_hash).not.toContain('pass1234');
      // The plain path (issue 37): the hash is of the verifier the server derived, never of the password.
      expect(await server.ctx.passwords.verify(account.password_hash, 'pass1234')).toBe(false);
      const { verifier } = await deriveReporterKeys({ caseNumber: row.case_number, password: 'pass1234', salt: account.salt!, kdf: JSON.parse(account.kdf!) }, NATIVE_KDF);
      expect(await server.ctx.passwords.verify(account.password_hash, Buffer.from(verifier).toString('base64url'))).toBe(true);
      expect(account.must_change_password).toBe(false);
      expect(account.last_login_at).toBeNull();
    });

    it(`${path} refuses bad input`, async () => {
      const before = await countRows(server);
      expectError(await call(server, 'POST', `/api/public/case/new/${path}`, { host: HOST, json: '{"whistleblowerRelation":' }), 400, 'BAD_JSON');
      expectError(await call(server, 'POST', `/api/public/case/new/${path}`, { host: HOST }), 400, 'BAD_JSON');
      expectError(await call(server, 'POST', `/api/public/case/new/${path}`, { host: HOST, json: oralDto(officers[0]!, { caseAccount: { follow: false } }) }), 400, 'VALIDATION', 'caseAccount.follow');
      expectError(await call(server, 'POST', `/api/public/case/new/${path}`, { host: HOST, json: oralDto(officers[0]!, { caseAccount: { follow: true, password: 'ab' } }) }), 400, 'VALIDATION', 'caseAccount.password');
      expectError(await call(server, 'POST', `/api/public/case/new/${path}`, { host: HOST, json: oralDto(officers[0]!, { whistleblowerRelation: 42 }) }), 400, 'VALIDATION', 'whistleblowerRelation');
      expectError(await call(server, 'POST', `/api/public/case/new/${path}`, { host: HOST, json: [1, 2] }), 400, 'VALIDATION');
      expectError(await call(server, 'POST', `/api/public/case/new/${path}`, { host: HOST, body: 'x=1', headers: { 'content-type': 'text/plain' } }), 400, 'BAD_JSON');
      expectError(await call(server, 'POST', `/api/public/case/new/${path}`, { host: HOST, body: 'x', headers: { 'content-type': 'application/xml' } }), 415, 'UNSUPPORTED_MEDIA_TYPE');
      expectError(await call(server, 'POST', `/api/public/case/new/${path}`, { host: 'nobody.test', json: oralDto(officers[0]!) }), 404, 'UNKNOWN_COMPANY');
      expect(await countRows(server)).toEqual(before);
    });
  }
});

function countTemps(): number {
  return listTemps().length;
}
function listTemps(): string[] {
  const dir = `${server.ctx.config.filesDir}/tmp`;
  return existsSync(dir) ? readdirSync(dir) : [];
}
async function waitFor(ok: () => boolean | Promise<boolean>, what: string, ms = 10_000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await ok()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}
async function waitForNoTemps() {
  await waitFor(() => countTemps() === 0, 'temporary uploads to be removed');
}

/** fetch() does not let a caller set Host; node:http does. */
function getWithHost(host: string, p: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: server.port, path: p, headers: { host } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}
