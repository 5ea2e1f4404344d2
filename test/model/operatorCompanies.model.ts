/** Model of the operator's companies screen: every answer, a good and an unreadable file, the first administrator, the link shown once. */
import type { EventObject } from 'xstate';
import { operatorMachine } from '../../machines/admin/operator.ts';
import type { MachineModel } from './harness.ts';

const answers = (id: string, extra: (EventObject & Record<string, unknown>)[] = []): (EventObject & Record<string, unknown>)[] => [
  { type: `xstate.done.actor.${id}`, output: { status: 401 } },
  { type: `xstate.done.actor.${id}`, output: { status: 500 } },
  { type: `xstate.error.actor.${id}`, error: 'network' },
  ...extra,
];

export const operatorEvents: (EventObject & Record<string, unknown>)[] = [
  { type: 'xstate.done.actor.loadCompanies', output: { status: 200, companies: [{ id: 'acme', name: 'Acme', hosts: ['acme.test'] }] } },
  ...answers('loadCompanies'),
  { type: 'reload' },
  { type: 'company.open' },
  { type: 'company.cancel' },
  { type: 'file.choose', name: 'beta.json', text: '{"id":"beta"}' },
  { type: 'file.choose', name: 'broken.json', text: '[1,2' },
  { type: 'assets.choose', assets: { 'logo.png': { contentType: 'image/png', base64: 'iVBORw0KGgo=' } } },
  { type: 'admin.change', field: 'adminName', value: 'Ada' },
  { type: 'admin.change', field: 'adminEmail', value: 'ada@beta.test' },
  { type: 'company.submit' },
  { type: 'xstate.done.actor.createCompany', output: { status: 201, companyId: 'beta', enrolmentLink: 'https://beta.test/handler/enrol#x' } },
  ...answers('createCompany', [
    { type: 'xstate.done.actor.createCompany', output: { status: 400, code: 'INVALID_COMPANY_FILE', field: 'hosts' } },
    { type: 'xstate.done.actor.createCompany', output: { status: 409, code: 'COMPANY_EXISTS' } },
  ]),
  { type: 'link.dismiss' },
];

export default {
  name: 'operatorCompanies',
  machine: operatorMachine,
  events: operatorEvents,
  serializeState: ((s: { value: unknown; context: { file: unknown; adminName: string; adminEmail: string; problem: unknown; link: unknown } }) =>
    JSON.stringify([s.value, !!s.context.file, s.context.adminName, s.context.adminEmail, s.context.problem, !!s.context.link])) as never,
} satisfies MachineModel;
