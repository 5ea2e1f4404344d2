/**
 * The audit trail in words (src/handler/auditWords.ts): the one function the case page's
 * trail, the sealed case's trail and both exports use. Every act the server writes has
 * words in every language, and a detail the catalogues cannot say is left out, not shown
 * raw. Real catalogues, formatted by intl-messageformat as the page formats them.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { IntlMessageFormat } from 'intl-messageformat';
import { AUDIT_ACTIONS } from '../../server/handlers/cases.ts';
import { auditWords, AUDIT_WORDS_ACTIONS, type AuditTranslators } from '../../src/handler/auditWords.ts';
import { LANGUAGES, type Language } from '../../machines/languages.ts';
import { toBcp47 } from '../../src/i18n/message.ts';

const AREAS = ['handler', 'sealedwork', 'work', 'notes', 'entry', 'export'] as const;

function translators(lang: Language): AuditTranslators {
  const common = JSON.parse(readFileSync(path.join('src/i18n/common', `${lang}.json`), 'utf8')) as Record<string, string>;
  const make = (area: string) => {
    const own = JSON.parse(readFileSync(path.join('src/i18n', area, `${lang}.json`), 'utf8')) as Record<string, string>;
    return (key: string, values?: Record<string, unknown>) => {
      const m = own[key] ?? common[key];
      if (m === undefined) throw new Error(`${lang}: no message ${key} in ${area}`);
      return String(new IntlMessageFormat(m, toBcp47(lang)).format(values as never));
    };
  };
  return Object.fromEntries(AREAS.map((a) => [a, make(a)])) as unknown as AuditTranslators;
}

const names = { file: (id: string) => (id === 'f1' ? 'letter.pdf' : undefined), keyHolder: (k: string) => (k === 'k1' ? 'Greta' : undefined) };

describe('audit entries in words', () => {
  it('knows exactly the acts the server writes', () => {
    expect([...AUDIT_WORDS_ACTIONS].sort()).toEqual([...AUDIT_ACTIONS].sort());
  });

  it('names every act in every language with a message of its own', () => {
    for (const lang of LANGUAGES) {
      const t = translators(lang);
      const words = AUDIT_ACTIONS.map((action) => auditWords({ action }, names, t).what);
      for (const [i, w] of words.entries()) {
        expect(w, `${lang} ${AUDIT_ACTIONS[i]}`).not.toBe('');
        expect(w, `${lang} ${AUDIT_ACTIONS[i]}`).not.toMatch(/\.audit\.|^[A-Z_]+$/);
      }
      expect(new Set(words).size, `${lang}: two acts with the same words`).toBe(words.length);
    }
  });

  it('says the details the server keeps', () => {
    const t = translators('en');
    const detail = (action: string, d: Record<string, unknown>) => auditWords({ action, detail: d }, names, t).detail;
    expect(detail('STATUS_CHANGED', { from: 'RECEIVED', to: 'BEING_INVESTIGATED' })).toBe(`${t.handler('handler.status.RECEIVED')} → ${t.handler('handler.status.BEING_INVESTIGATED')}`);
    expect(detail('MESSAGE_SENT', { type: 'FEEDBACK', answerWanted: true, files: 2 })).toBe(`${t.handler('handler.messageType.FEEDBACK')} · ${t.handler('handler.composer.answerWanted')} · 2 files`);
    expect(detail('FILE_DOWNLOADED', { fileId: 'f1' })).toBe('File: letter.pdf');
    expect(detail('FILE_DOWNLOADED', { fileId: 'f9' })).toBe('File: a file that could not be opened');
    expect(detail('FILE_DOWNLOADED', { recordVersion: 3 })).toBe('Record, version 3');
    expect(detail('ASSIGNED', { from: 'anna', to: 'bo' })).toBe('from anna to bo');
    expect(detail('ASSIGNED', { to: 'bo' })).toBe('to bo');
    expect(detail('SHARED', { with: 'anna' })).toBe('with anna');
    expect(detail('ACCESS_GRANTED', { recipientKeyId: 'k1' })).toBe('To: Greta');
    expect(detail('ACCESS_REVOKED', { recipientKeyId: 'k2', epoch: 2 })).toBe('From: a colleague · new key no. 2');
    expect(detail('NOTE_EDITED', { version: 4 })).toBe('Version 4');
    expect(detail('NOTE_FILES_ADDED', { noteId: 'n1', files: 2 })).toBe(t.notes('notes.audit.files', { count: 2 }));
    expect(detail('FILE_DOWNLOADED', { fileId: 'f7', noteId: 'n1' })).toBe(t.notes('notes.audit.noteFile'));
    expect(detail('CASE_ENTERED', { channel: 'LETTER', receivedOn: '2026-11-30' })).toBe(`${t.entry('entry.channel.LETTER')}, received on 30/11/2026`);
    expect(detail('CASE_EXPORTED', { parts: 'report,notes', redactedTerms: 1 })).toBe(`Parts: ${t.export('export.part.report')}, ${t.notes('notes.export')} · redacted, 1 term`);
  });

  it('leaves out a detail it cannot say, rather than showing it raw', () => {
    const t = translators('en');
    const detail = (action: string, d: Record<string, unknown>) => auditWords({ action, detail: d }, names, t).detail;
    expect(detail('STATUS_CHANGED', { from: 'RECEIVED', to: '<b>x</b>' })).toBe('');
    expect(detail('MESSAGE_SENT', { type: 'SHOUTING', files: -1 })).toBe('');
    expect(detail('CASE_ENTERED', { channel: 'PIGEON', receivedOn: '2026-11-30' })).toBe('');
    expect(detail('CASE_EXPORTED', { parts: 'report,<script>', redactedTerms: 0 })).toBe(`Parts: ${t.export('export.part.report')} · not redacted`);
    expect(detail('CASE_READ', { anything: 'at all' })).toBe('');
    // An act written by a newer server than this page keeps its code rather than vanishing from the trail.
    expect(auditWords({ action: 'SOMETHING_NEW' }, names, t)).toEqual({ what: 'SOMETHING_NEW', detail: '' });
  });
});
