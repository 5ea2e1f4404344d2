/** Model of the administrator's reply templates: every load, save and removal answer, a new template and an edit, drafts the shared rules refuse and accept, removal through its confirmation. */
import type { EventObject } from 'xstate';
import { templatesMachine } from '../../machines/admin/templates.ts';
import type { MachineModel } from './harness.ts';

export const adminTemplates = [{ id: 't1', name: 'Receipt', texts: { da: 'Vi har modtaget din indberetning.', en: 'We have received your report.' }, updatedAt: '2026-12-01T00:00:00.000Z' }];

export const adminTemplatesEvents: (EventObject & Record<string, unknown>)[] = [
  { type: 'xstate.done.actor.loadTemplates', output: { status: 200, templates: adminTemplates, languages: ['da', 'en'], defaultLanguage: 'da' } },
  { type: 'xstate.done.actor.loadTemplates', output: { status: 401 } },
  { type: 'xstate.done.actor.loadTemplates', output: { status: 500 } },
  { type: 'xstate.error.actor.loadTemplates', error: 'network' },
  { type: 'retry' },
  { type: 'template.new' },
  { type: 'template.edit', id: 't1' },
  { type: 'template.edit', id: 'unknown' },
  { type: 'template.delete', id: 't1' },
  { type: 'draft.name', value: '' },
  { type: 'draft.text', language: 'da', value: 'Tak' },
  { type: 'draft.save' },
  { type: 'draft.cancel' },
  { type: 'xstate.done.actor.saveTemplate', output: { status: 201 } },
  { type: 'xstate.done.actor.saveTemplate', output: { status: 401 } },
  { type: 'xstate.done.actor.saveTemplate', output: { status: 409, code: 'TEMPLATE_LIMIT' } },
  { type: 'xstate.done.actor.saveTemplate', output: { status: 400, code: 'VALIDATION' } },
  { type: 'xstate.done.actor.saveTemplate', output: { status: 503 } },
  { type: 'xstate.error.actor.saveTemplate', error: 'network' },
  { type: 'delete.confirm' },
  { type: 'delete.cancel' },
  { type: 'xstate.done.actor.deleteTemplate', output: { status: 204 } },
  { type: 'xstate.done.actor.deleteTemplate', output: { status: 401 } },
  { type: 'xstate.done.actor.deleteTemplate', output: { status: 500 } },
  { type: 'xstate.error.actor.deleteTemplate', error: 'network' },
];

export default {
  name: 'adminTemplates',
  machine: templatesMachine,
  events: adminTemplatesEvents,
  serializeState: ((s: { value: unknown; context: { draft: { id: string | null; name: string; texts: Record<string, string> }; deletingId: string | null; problem: string | null; templates: unknown[] } }) =>
    JSON.stringify([s.value, s.context.draft, s.context.deletingId, s.context.problem, s.context.templates.length])) as never,
} satisfies MachineModel;
