/** Model of the composer's template picker: every load answer, choosing, inserting into an empty and a typed text, replace, append (within and past the limit), cancel. */
import type { EventObject } from 'xstate';
import { templatePickerMachine } from '../../machines/handler/templatePicker.ts';
import type { MachineModel } from './harness.ts';

export const pickerTemplates = [
  { id: 't1', name: 'Receipt', texts: { da: 'Vi har modtaget din indberetning.', pl: 'Potwierdzamy przyjęcie zgłoszenia.' }, updatedAt: '2026-12-01T00:00:00.000Z' },
  { id: 't2', name: 'Long', texts: { da: 'x'.repeat(60), pl: 'y'.repeat(60) }, updatedAt: '2026-12-01T00:00:00.000Z' },
];

export const pickerEvents: (EventObject & Record<string, unknown>)[] = [
  { type: 'xstate.done.actor.loadTemplates', output: { status: 200, templates: pickerTemplates, languages: ['da', 'pl'], defaultLanguage: 'da' } },
  { type: 'xstate.done.actor.loadTemplates', output: { status: 401 } },
  { type: 'xstate.done.actor.loadTemplates', output: { status: 500 } },
  { type: 'xstate.error.actor.loadTemplates', error: 'network' },
  { type: 'retry' },
  { type: 'template.choose', id: 't1' },
  { type: 'template.choose', id: 't2' },
  { type: 'template.choose', id: 'unknown' },
  { type: 'template.insert', text: '' },
  { type: 'template.insert', text: 'Dear reporter,' },
  { type: 'insert.replace' },
  { type: 'insert.append' },
  { type: 'insert.cancel' },
];

export default {
  name: 'handlerTemplatePicker',
  machine: templatePickerMachine,
  events: pickerEvents,
  input: { reporterLanguage: 'pl', max: 80 },
  serializeState: ((s: { value: unknown; context: { chosenId: string | null; typed: string; templates: unknown[]; inserted: string } }) =>
    JSON.stringify([s.value, s.context.chosenId, s.context.typed, s.context.templates.length, s.context.inserted])) as never,
} satisfies MachineModel;
