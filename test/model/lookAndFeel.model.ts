/**
 * Model of the look-and-feel machine: every event with payloads that take every
 * guarded branch (look-and-feel 200 / no status / other failure; company info
 * 200 / 404 / 500 / no status / other 4xx; language change; retry).
 */
import type { AnyMachineSnapshot, EventObject } from 'xstate';
import { lookAndFeelMachine, DEFAULT_LOOK_AND_FEEL, type LookAndFeel, type CompanyInfo } from '../../machines/lookAndFeel.ts';
import type { MachineModel } from './harness.ts';

export const lookAndFeelEn: LookAndFeel = {
  ...DEFAULT_LOOK_AND_FEEL,
  languageCode: 'en',
  languageName: 'English',
  logoFileName: 'logo.svg',
  siteColors: { primaryColorCode: '#0b3d2e', secondaryColorCode: '#e6f2ee', infoColorCode: '#ffffff' },
  siteFrontPage: { ...DEFAULT_LOOK_AND_FEEL.siteFrontPage, heading: 'Speak up', showVerbalOption: false },
};

export const companyInfo: CompanyInfo = {
  protectionOfficers: [
    { id: 'po-1', name: 'Anna Berg', jobTitle: 'Lawyer', company: 'Law & Co', phone: '+4512345678', customerRelation: 'EXTERNAL', logoUrl: null },
  ],
  subsidiaries: [],
};

/** Events with payloads (actor outputs and errors) typed loosely, as the harness sends them. */
const ev = (e: { type: string } & Record<string, unknown>): EventObject => e as EventObject;

export const lookAndFeelEvents: EventObject[] = [
  ev({ type: 'xstate.done.actor.fetchLookAndFeel', output: lookAndFeelEn }),
  ev({ type: 'xstate.error.actor.fetchLookAndFeel', error: { status: 'no status' } }),
  ev({ type: 'xstate.error.actor.fetchLookAndFeel', error: { status: 404 } }),
  ev({ type: 'xstate.done.actor.fetchCompanyInfo', output: companyInfo }),
  ev({ type: 'xstate.error.actor.fetchCompanyInfo', error: { status: 404 } }),
  ev({ type: 'xstate.error.actor.fetchCompanyInfo', error: { status: 500 } }),
  ev({ type: 'xstate.error.actor.fetchCompanyInfo', error: { status: 'no status' } }),
  ev({ type: 'xstate.error.actor.fetchCompanyInfo', error: { status: 400 } }),
  ev({ type: 'language.change', language: 'en' }),
  ev({ type: 'retry' }),
];

const model: MachineModel = {
  name: 'lookAndFeel',
  machine: lookAndFeelMachine,
  input: { language: 'de' },
  events: lookAndFeelEvents,
  // Context collapsed to what decides the next transition or what is shown.
  serializeState: (s: AnyMachineSnapshot) =>
    JSON.stringify({
      value: s.value,
      hasCompanyInfo: s.context.companyInfo !== null,
      usingDefaults: s.context.usingDefaults,
      language: s.context.language,
      requested: s.context.requested,
    }),
};

export default model;
