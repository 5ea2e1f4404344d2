/**
 * Voice messages on the server (issue 40): the company setting as the SPA reads it,
 * WebM and Ogg recognised by their bytes, and a report whose text is a recording —
 * accepted only with an audio file, only where the company takes voice messages.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addCompany } from './fixtures/company.ts';
import { call, caseDto, expectError, form, PDF } from './api.ts';

let server: TestServer;
let onOfficer: string;
let offOfficer: string;
const ON = 'voice-on.test';
const OFF = 'voice-off.test';
/** The opening of a WebM file as MediaRecorder writes it: the EBML header, then its DocType. */
const WEBM = Buffer.concat([Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81, 0x01, 0x42, 0x82, 0x84]), Buffer.from('webm'), Buffer.alloc(200, 7)]);
const OGG = Buffer.concat([Buffer.from('OggS'), Buffer.alloc(200, 3)]);

beforeAll(async () => {
  server = await startTestServer({ seedDemo: false });
  onOfficer = (await addCompany(server.ctx.db, { id: 'voice-on', hosts: [ON], voice: { enabled: true, maxMinutes: 5, disguise: 'always' } })).officerIds[0]!;
  offOfficer = (await addCompany(server.ctx.db, { id: 'voice-off', hosts: [OFF] })).officerIds[0]!;
});
afterAll(async () => server?.cleanup());

const send = (host: string, dto: unknown, files: { name: string; bytes: Buffer }[]) =>
  call(server, 'POST', '/api/public/case/new/by-form', { host, body: form('caseDto', dto, files) });

describe('voice messages on the server', () => {
  it('the look and feel carries the setting; a company file that says nothing has voice off, 10 minutes, the reporter choosing', async () => {
    const on = await call(server, 'GET', '/api/public/site-look-and-feel/language/da', { host: ON });
    expect(on.data.voice).toEqual({ enabled: true, maxMinutes: 5, disguise: 'always' });
    const off = await call(server, 'GET', '/api/public/site-look-and-feel/language/da', { host: OFF });
    expect(off.data.voice).toEqual({ enabled: false, maxMinutes: 10, disguise: 'choice' });
  });

  it('a report with a voice message and no text is taken, the recording stored as audio/webm; an Ogg one as audio/ogg', async () => {
    const res = await send(ON, caseDto(onOfficer, { description: '', voiceMessage: true }), [{ name: 'voice-message.webm', bytes: WEBM }]);
    expect(res.status).toBe(201);
    const row = await server.ctx.db.selectFrom('case_file').select(['mime_type']).orderBy('created_at', 'desc').executeTakeFirstOrThrow();
    expect(row.mime_type).toBe('audio/webm');
    const ogg = await send(ON, caseDto(onOfficer, { description: '', voiceMessage: true }), [{ name: 'voice-message.ogg', bytes: OGG }]);
    expect(ogg.status).toBe(201);
  });

  it('no text and no voice message: 400 on the description', async () => {
    expectError(await send(ON, caseDto(onOfficer, { description: '' }), []), 400, 'VALIDATION', 'description');
  });

  it('a voice message claimed without an audio file: 400 VOICE_MESSAGE_MISSING', async () => {
    expectError(await send(ON, caseDto(onOfficer, { description: '', voiceMessage: true }), [{ name: 'a.pdf', bytes: PDF }]), 400, 'VOICE_MESSAGE_MISSING', 'voiceMessage');
    expectError(await send(ON, caseDto(onOfficer, { description: '', voiceMessage: true }), []), 400, 'VOICE_MESSAGE_MISSING', 'voiceMessage');
  });

  it('at a company without voice messages: 400 VOICE_MESSAGES_OFF', async () => {
    expectError(await send(OFF, caseDto(offOfficer, { description: '', voiceMessage: true }), [{ name: 'voice-message.webm', bytes: WEBM }]), 400, 'VOICE_MESSAGES_OFF', 'voiceMessage');
  });

  it('a .webm whose bytes are not WebM is refused by its content', async () => {
    expectError(await send(ON, caseDto(onOfficer), [{ name: 'voice-message.webm', bytes: PDF }]), 415, 'FILE_CONTENT_MISMATCH');
  });
});
