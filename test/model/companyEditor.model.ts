/** Model of the company editor: loading, every kind of edit, preview, save, versions and revert, import, each call's outcomes. */
import type { AnyMachineSnapshot, EventObject } from 'xstate';
import { companyEditorMachine, type EditorContext, type EditorData } from '../../machines/admin/companyEditor.ts';
import { sameDraft } from '../../machines/admin/companyDraft.ts';
import type { MachineModel } from './harness.ts';

const section = (h: string) => ({ heading: `${h} heading`, paragraph: `${h} paragraph` });
const entry = (languageName: string) => ({
  languageName,
  siteFrontPage: { heading: 'Whistleblower scheme', subHeading: 'Report safely', paragraph: 'Tell us.', showVerbalOption: true, showBookingOption: false, backgroundImageColor: 'blue' },
  siteHowToReportPage: { heading: 'How to report', textSections: [section('how')] },
  siteFAQPage: { heading: 'FAQ', faqs: [section('faq')] },
  siteAboutPages: ['PERSONAL_DATA', 'ANONYMITY', 'CASE_MANAGEMENT'].map((t) => ({ aboutPageType: t, heading: t, visible: true, textSections: [section(t)] })),
  navigationPages: [{ text: 'Home', link: '/', icon: 'home', children: [] }],
});

export const companyFile = {
  id: 'acme',
  name: 'Acme Ltd',
  hosts: ['acme.test'],
  defaultLanguage: 'da',
  languages: ['da', 'en'],
  logo: { file: 'logo.png', contentType: 'image/png' },
  siteColors: { primaryColorCode: '#172a55', secondaryColorCode: '#ecf1f5', infoColorCode: '#ffffff' },
  contactPhone: '+45 70 20 30 40',
  contactPerson: 'Jane',
  contactDetails: 'Weekdays',
  phoneCodes: { da: 'DK', en: 'GB' },
  protectionOfficers: [{ id: '6f1c1b9e-8a43-4c3e-9d4b-2d0c2a6f7e11', name: 'Officer', jobTitle: 'Lawyer', company: 'Law & Co', phone: '+4512345678', customerRelation: 'INTERNAL' }],
  subsidiaries: [],
  lookAndFeel: { da: entry('Dansk'), en: entry('English') },
  allowIndexing: false,
};

const SHA = 'a'.repeat(64);
export const editorData = (canEditHosts: boolean): EditorData => ({ version: 2, file: companyFile as never, images: { 'logo.png': { sha256: SHA, contentType: 'image/png' } }, canEditHosts });

const outcomes = (id: string, ok: { status: number; data?: unknown }, extra: { status: number; code?: string; field?: string }[] = []): EventObject[] => [
  { type: `xstate.done.actor.${id}`, output: ok } as EventObject,
  { type: `xstate.done.actor.${id}`, output: { status: 401, code: 'UNAUTHORIZED' } } as EventObject,
  ...extra.map((output) => ({ type: `xstate.done.actor.${id}`, output }) as EventObject),
  { type: `xstate.done.actor.${id}`, output: { status: 500, code: 'INTERNAL' } } as EventObject,
  { type: `xstate.error.actor.${id}`, error: 'network' } as EventObject,
];

/** Each invoked actor's answers, offered only while it runs; people's events only while nothing runs. */
const answers: Record<string, EventObject[]> = {
  loading: outcomes('loadEditor', { status: 200, data: editorData(false) }),
  uploading: outcomes('uploadImage', { status: 201, data: { sha256: 'b'.repeat(64), contentType: 'image/png', file: 'images/bbbbbbbbbbbbbbbb.png', path: ['logo'] } }, [{ status: 400, code: 'IMAGE_REFUSED', field: 'base64' }]),
  'previewing.drawing': outcomes('createPreview', { status: 201, data: { id: '00000000-0000-4000-8000-000000000000' } }, [{ status: 400, code: 'INVALID_COMPANY_FILE' }]),
  saving: outcomes('saveDraft', { status: 200, data: { version: 3 } }, [{ status: 409, code: 'VERSION_CONFLICT' }, { status: 400, code: 'INVALID_COMPANY_FILE', field: 'name' }]),
  reloading: outcomes('reloadEditor', { status: 200, data: { ...editorData(true), version: 3 } }),
  'versions.loading': outcomes('loadVersions', {
    status: 200,
    data: { versions: [2, 1].map((version) => ({ version, action: version === 1 ? 'import' : 'save', revertedTo: null, actorName: 'Ada', actorRole: 'admin', createdAt: '2026-12-01T10:00:00.000Z' })) },
  }),
  reverting: outcomes('revertVersion', { status: 200, data: { version: 3 } }, [{ status: 409, code: 'VERSION_CONFLICT' }, { status: 400, code: 'INVALID_COMPANY_FILE' }]),
  importing: outcomes('importBundle', { status: 200, data: { version: 3 } }, [{ status: 409, code: 'VERSION_CONFLICT' }, { status: 400, code: 'INVALID_COMPANY_FILE' }]),
};

export const editorEvents: EventObject[] = [
  { type: 'editor.retry' },
  { type: 'field.change', path: ['lookAndFeel', 'da', 'siteFrontPage', 'heading'], value: 'Sig det til os' } as EventObject,
  { type: 'field.change', path: ['lookAndFeel', 'da', 'siteFrontPage', 'heading'], value: 'Whistleblower scheme' } as EventObject,
  { type: 'field.change', path: ['siteColors', 'primaryColorCode'], value: '#f0f0f0' } as EventObject,
  { type: 'field.change', path: ['siteColors', 'primaryColorCode'], value: '#172a55' } as EventObject,
  { type: 'field.change', path: ['hosts', 0], value: 'new.acme.test' } as EventObject,
  { type: 'item.add', path: ['subsidiaries'], id: 'new-sub' } as EventObject,
  { type: 'item.remove', path: ['subsidiaries'], index: 0 } as EventObject,
  { type: 'language.add', language: 'de', languageName: 'Deutsch' } as EventObject,
  { type: 'language.remove', language: 'de' } as EventObject,
  { type: 'image.choose', path: ['logo'], contentType: 'image/png', base64: 'iVBORw0KGgo=' } as EventObject,
  { type: 'draft.discard' },
  { type: 'preview.open', language: 'da' } as EventObject,
  { type: 'preview.language', language: 'en' } as EventObject,
  { type: 'preview.language', language: 'pl' } as EventObject,
  { type: 'preview.close' },
  { type: 'save.request' },
  { type: 'save.cancel' },
  { type: 'save.confirm' },
  { type: 'versions.open' },
  { type: 'versions.close' },
  { type: 'revert.request', version: 1 } as EventObject,
  { type: 'revert.request', version: 2 } as EventObject,
  { type: 'revert.cancel' },
  { type: 'revert.confirm' },
  { type: 'import.choose', bundle: { file: companyFile, assets: {} } } as EventObject,
];

export default {
  name: 'companyEditor',
  machine: companyEditorMachine,
  input: { companyId: 'acme' },
  events: (snapshot: AnyMachineSnapshot) => {
    const running = Object.keys(answers).find((state) => snapshot.matches(state.includes('.') ? { [state.split('.')[0]!]: state.split('.')[1]! } : state));
    return running ? answers[running]! : snapshot.hasTag('busy') ? [] : editorEvents;
  },
  serializeState: ((s: AnyMachineSnapshot) => {
    const c = s.context as EditorContext;
    const changed = !!c.draft && !!c.saved && !sameDraft(c.draft, c.saved);
    return JSON.stringify([s.value, c.issues.length > 0, changed]);
  }) as never,
} satisfies MachineModel;
