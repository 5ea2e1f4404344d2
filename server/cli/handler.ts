/**
 * npm run handler -- COMMAND …   (a case handler's side, over the handler API)
 *
 * Talks HTTP to a running server: --url (default: the server recorded in the data
 * folder, else http://localhost:PORT or 9000), token from --token or HANDLER_TOKEN.
 * `create-account` uses the loopback admin API with DATA_DIR/admin.token, or opens
 * the database directly when no server runs.
 */
import { mkdirSync, openAsBlob, existsSync, createWriteStream } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { openDatabase } from '../db/database.ts';
import { createHandlerAccount, enrolmentLink, HandlerAccountError, normalizeEmail } from '../handlers/accounts.ts';
import { appendTrail } from '../handlers/administration.ts';
import { companyByHost, companyById } from '../companies/service.ts';
import { adminToken, cliConfig, fail, failFromResponse, isConnectionRefused, parseCli, runningServer, serverUrl, usageError } from './common.ts';
import { escapeForTerminal, freeName, jsonForTerminal } from './terminal.ts';

const USAGE = `usage: npm run handler -- COMMAND [options]

  list                                   the company's cases
  show CASE [--save DIR]                 one case in full; --save writes its files (decrypted) to DIR;
                                         a sealed case (issue 37) opens only in the web workspace
                                         at <portal>/handler: the server, and so this CLI, holds
                                         no key for it
  status CASE STATUS                     RECEIVED, BEING_INVESTIGATED, BEING_CLOSED or CLOSED
  report CASE TEXT                       record the text of a phone or meeting report
  message CASE TEXT [--type T] [--answer-wanted] [--file F]…
                                         T: STANDARD (default), FEEDBACK or CONFIRMATION
  create-account --company HOST [--name NAME] [--email ADDRESS] [--officer ID]… [--admin]
                                         prints a new handler token for the company and,
                                         with --email, a one-time link (72 hours) to enrol
                                         for the web workspace at <portal>/handler; --officer
                                         limits the handler to those protection officers' cases;
                                         --admin makes the account the company's administrator too

  administration (the operator, with DATA_DIR/admin.token; ACCOUNT is an account id or e-mail):
  create-operator --name NAME --email ADDRESS   an operator account (no company), enrolled
                                         with the link printed, for the browser at /handler
  accounts --company HOST                the company's accounts and their state
  invite --company HOST --name NAME --email ADDRESS [--officer ID]… [--admin] [--no-cases]
                                         a web account, its enrolment link mailed (SMTP set)
                                         or printed; no API token
  set-officers --company HOST ACCOUNT [--officer ID]…   none: every officer
  disable | enable | remove --company HOST ACCOUNT
  reset --company HOST ACCOUNT [--what password|secondFactor]
                                         a new enrolment; the old password, second factor,
                                         sessions and tokens stop at once
  end-sessions --company HOST ACCOUNT
  tokens --company HOST ACCOUNT          the account's API tokens
  create-token --company HOST ACCOUNT [--label TEXT]   a token for automation (expires)
  revoke-token --company HOST ACCOUNT TOKEN_ID
  trail --company HOST                   the administration trail, newest first

options: --url URL   --token TOKEN (or HANDLER_TOKEN)   --json (raw JSON output)`;

// Why no credentials here (docs/decisions/sealed-migration.md "Scripted clients; the CLI"):
// this CLI runs on the server's host, the operator's, the party a sealed case is sealed
// against; a handler's password or key typed into it would open the case to that host.
const SEALED = 'this case is sealed: only its reporter and the handlers entitled to it open it, in their own browsers, and the server holds no key for it. Open it in the web workspace (/handler on the company\'s portal); this CLI works on server-keyed cases only.';

const SYNOPSIS = 'npm run handler -- list | show CASE | status CASE STATUS | report CASE TEXT | message CASE TEXT | create-account --company HOST | create-operator | accounts | invite | disable | enable | remove | reset | end-sessions | tokens | create-token | revoke-token | trail (--help for all)';

const { values, positionals } = parseCli({
  options: {
    url: { type: 'string' },
    token: { type: 'string' },
    save: { type: 'string' },
    type: { type: 'string' },
    'answer-wanted': { type: 'boolean' },
    file: { type: 'string', multiple: true },
    company: { type: 'string' },
    name: { type: 'string' },
    email: { type: 'string' },
    officer: { type: 'string', multiple: true },
    admin: { type: 'boolean' },
    'no-cases': { type: 'boolean' },
    what: { type: 'string' },
    label: { type: 'string' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  },
  allowPositionals: true,
}, SYNOPSIS);

const config = cliConfig();
const url = serverUrl(config, values.url);
const [command, ...args] = positionals;
const out = (s: string) => process.stdout.write(s + '\n');

if (values.help) {
  out(USAGE);
  process.exit(0);
}
if (!command) usageError('missing command', SYNOPSIS);

function token(): string {
  const t = values.token ?? process.env.HANDLER_TOKEN;
  if (!t) usageError('a handler token is needed: --token TOKEN or HANDLER_TOKEN (create one with create-account)', SYNOPSIS);
  return t;
}

async function api(method: string, p: string, body?: BodyInit, json?: unknown): Promise<Response> {
  const headers: Record<string, string> = { authorization: `Bearer ${token()}` };
  if (json !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(`${url}${p}`, { method, headers, body: json !== undefined ? JSON.stringify(json) : body });
  } catch (err) {
    if (isConnectionRefused(err)) fail(`no server answers at ${url} (start it with npm start, or pass --url)`);
    throw err;
  }
  if (res.status === 409) {
    const text = await res.clone().text();
    let code: string | undefined;
    try {
      code = (JSON.parse(text) as { error?: { code?: string } }).error?.code;
    } catch {
      // not JSON: the generic answer below
    }
    if (code === 'CASE_SEALED') fail(SEALED);
  }
  if (!res.ok) await failFromResponse(res);
  return res;
}

function need(n: number, what: string) {
  if (args.length < n) usageError(`${command} needs ${what}`, SYNOPSIS);
}

const caseNo = (s: string) => encodeURIComponent(s.replace(/[\s-]/g, ''));

interface CaseView {
  caseNumber: string;
  files: { id: string; name: string; size: number }[];
  [k: string]: unknown;
}

function printCase(c: CaseView) {
  if (values.json) return out(jsonForTerminal(c));
  const v = c as Record<string, any>;
  // Every line holds reporter text: controls and bidi overrides are shown, never obeyed.
  const line = (s: string) => out(escapeForTerminal(s));
  line(`Case ${v.caseNumber.replace(/(\d{4})(?=\d)/g, '$1 ')}  ${v.status}  ${v.submission.type}  created ${v.created}`);
  if (v.pendingWhistleblowerAction) out('  waiting for the reporter to answer');
  if (v.approvedAt) line(`  report approved ${v.approvedAt}`);
  line(`  officer: ${v.protectionOfficer.name} (${v.protectionOfficer.jobTitle}, ${v.protectionOfficer.company})`);
  if (v.subsidiary) line(`  subsidiary: ${v.subsidiary.name}`);
  line(`  relation: ${v.whistleblowerRelation}`);
  if (v.description) line(`  description: ${v.description}`);
  if (v.violation) line(`  violation: ${v.violation}${v.repeatedViolations ? ' (repeated)' : ''}`);
  for (const p of v.reportedPersons) line(`  reported person: ${p.name}, ${p.jobTitle}, ${p.phoneOrEmail}`);
  if (v.reportedUnit) line(`  reported unit: ${v.reportedUnit}`);
  line(`  reporter: ${v.whistleblower ? `${v.whistleblower.name} <${v.whistleblower.email}>${v.whistleblower.phone ? ` ${v.whistleblower.phone}` : ''}` : 'anonymous'}; follows the case: ${v.caseAccount.follow ? 'yes' : 'no'}`);
  if (v.report) line(`  recorded report (${v.report.updatedAt}): ${v.report.text}`);
  line('  status history:');
  for (const e of v.caseStatusHistory) line(`    ${e.dateTime}  ${e.status}`);
  if (v.files.length) out('  files:');
  for (const f of v.files) line(`    ${f.id}  ${f.name}  ${f.size} bytes  ${f.mimeType}`);
  if (v.messages.length) out('  messages:');
  for (const m of v.messages) line(`    ${m.time}  ${m.type}${m.createdByUserId === v.caseNumber ? ' from reporter' : ''}${m.answerWanted ? ' (answer wanted)' : ''}: ${m.message}${m.files.length ? ` [${m.files.map((f: { name: string }) => f.name).join(', ')}]` : ''}`);
  if (v.comments.length) out('  comments on the report:');
  for (const c2 of v.comments) line(`    ${c2.created}: ${c2.comment}`);
}


/** The portal a handler of the company opens: PUBLIC_URL, else the host given (or the company's first) on the server's port. */
function portalOrigin(hosts: string[], port: number): string {
  if (config.publicUrl) return new URL(config.publicUrl).origin;
  const given = values.company!.toLowerCase();
  const host = hosts.includes(given) ? given : (hosts[0] ?? 'localhost');
  return `${new URL(url).protocol}//${host}${port === 80 || port === 443 ? '' : `:${port}`}`;
}

function printAccount(a: { token: string; companyId: string; hosts: string[]; enrolmentCode: string | null; enrolmentExpiresAt: string | null }, name: string) {
  out(a.token);
  process.stderr.write(`handler account "${name}" created for company "${a.companyId}"; keep the token secret, it is shown only once\n`);
  if (a.enrolmentCode) {
    const u = new URL(url);
    const port = Number(u.port || (u.protocol === 'https:' ? 443 : 80));
    out(enrolmentLink(portalOrigin(a.hosts, port), a.enrolmentCode));
    process.stderr.write(`send the link above to ${normalizeEmail(values.email ?? '')} in person or by a trusted channel: it works once, until ${a.enrolmentExpiresAt}\n`);
  }
}

async function createAccount() {
  if (!values.company) usageError('create-account needs --company HOST (a host name or company id)', SYNOPSIS);
  const name = values.name ?? 'handler';
  const email = values.email !== undefined ? normalizeEmail(values.email) : undefined;
  if (email !== undefined && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) fail(`--email "${values.email}" is not an e-mail address`);
  const officers = values.officer ?? [];
  const admin = adminToken(config);
  if (admin) {
    try {
      const res = await fetch(`${url}/api/admin/handlers`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}` },
        body: JSON.stringify({ company: values.company, name, email, officers, admin: !!values.admin }),
      });
      if (!res.ok) await failFromResponse(res);
      printAccount((await res.json()) as Parameters<typeof printAccount>[0], name);
      return;
    } catch (err) {
      if (!isConnectionRefused(err)) throw err;
      if (runningServer(config)) fail(`the server holding ${config.dataDir} does not answer at ${url}; pass --url`);
    }
  }
  const db = await openDatabase({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
  try {
    const company = (await companyByHost(db.db, values.company)) ?? (await companyById(db.db, values.company));
    if (!company) fail(`no company has the host name or id "${values.company}"`);
    let account;
    try {
      account = await createHandlerAccount(db.db, company.id, name, { email, officers, knownOfficers: company.settings.protectionOfficers.map((o) => o.id), roles: { admin: !!values.admin }, tokenTtlMs: config.handlerTokenTtlMs });
    } catch (err) {
      if (err instanceof HandlerAccountError) fail(err.message);
      throw err;
    }
    const hosts = await db.db.selectFrom('company_host').select('host').where('company_id', '=', company.id).orderBy('host').execute();
    printAccount(
      {
        token: account.token!,
        companyId: company.id,
        hosts: hosts.map((h) => h.host),
        enrolmentCode: account.enrolmentCode ?? null,
        enrolmentExpiresAt: account.enrolmentExpiresAt?.toISOString() ?? null,
      },
      name,
    );
  } finally {
    await db.close();
  }
}

/** A call to the running server's admin API with the admin token. */
async function adminApi(method: string, p: string, json?: unknown): Promise<any> {
  const admin = adminToken(config);
  if (!admin) fail(`no admin token in ${config.dataDir}: start the server (npm start) once, then run this on its host`);
  let res: Response;
  try {
    res = await fetch(`${url}${p}`, { method, headers: { authorization: `Bearer ${admin}`, ...(json !== undefined ? { 'content-type': 'application/json' } : {}) }, body: json !== undefined ? JSON.stringify(json) : undefined });
  } catch (err) {
    if (isConnectionRefused(err)) fail(`no server answers at ${url} (start it with npm start, or pass --url)`);
    throw err;
  }
  if (!res.ok) await failFromResponse(res);
  return res.status === 204 ? null : res.json();
}

function companyPath(): string {
  if (!values.company) usageError(`${command} needs --company HOST (a host name or company id)`, SYNOPSIS);
  return `/api/admin/companies/${encodeURIComponent(values.company)}`;
}

/** ACCOUNT as given: an account id, or an e-mail address looked up among the company's accounts. */
async function accountPath(): Promise<string> {
  need(1, 'an account (its id or e-mail)');
  const c = companyPath();
  const given = args[0]!;
  if (/^[0-9a-f-]{36}$/i.test(given)) return `${c}/accounts/${given.toLowerCase()}`;
  const { accounts } = (await adminApi('GET', `${c}/accounts`)) as { accounts: { id: string; email: string | null }[] };
  const found = accounts.find((a) => a.email === normalizeEmail(given));
  if (!found) fail(`the company has no account "${given}"`);
  return `${c}/accounts/${found.id}`;
}

function printInvitation(i: { account: { name: string; email: string }; enrolmentLink: string | null; mailed: boolean; enrolmentExpiresAt: string }) {
  if (values.json) return out(jsonForTerminal(i));
  if (i.enrolmentLink) {
    out(i.enrolmentLink);
    process.stderr.write(`send the link above to ${i.account.email} in person or by a trusted channel: it works once, until ${i.enrolmentExpiresAt}\n`);
  } else process.stderr.write(`the enrolment link was mailed to ${i.account.email}; it works once, until ${i.enrolmentExpiresAt}\n`);
}

async function createOperator() {
  if (!values.name || !values.email) usageError('create-operator needs --name NAME and --email ADDRESS', SYNOPSIS);
  const email = normalizeEmail(values.email);
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) fail(`--email "${values.email}" is not an e-mail address`);
  const admin = adminToken(config);
  if (admin) {
    try {
      const res = await fetch(`${url}/api/admin/operators`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}` }, body: JSON.stringify({ name: values.name, email }) });
      if (!res.ok) await failFromResponse(res);
      const r = (await res.json()) as { enrolmentLink: string; enrolmentExpiresAt: string };
      out(r.enrolmentLink);
      process.stderr.write(`operator "${escapeForTerminal(values.name)}" created; enrol with the link above once, until ${r.enrolmentExpiresAt}\n`);
      return;
    } catch (err) {
      if (!isConnectionRefused(err)) throw err;
      if (runningServer(config)) fail(`the server holding ${config.dataDir} does not answer at ${url}; pass --url`);
    }
  }
  // No server: the first operator is made in the database directly (and the trail says so).
  const db = await openDatabase({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
  try {
    let account;
    try {
      account = await createHandlerAccount(db.db, null, values.name, { email, token: false });
    } catch (err) {
      if (err instanceof HandlerAccountError) fail(err.message);
      throw err;
    }
    await appendTrail(db.db, null, { actorId: null, actorName: 'operator (command line)', actorRole: 'operator-cli' }, 'OPERATOR_CREATED', { id: account.id, name: values.name }, { email });
    const origin = config.publicUrl ? new URL(config.publicUrl).origin : `http://${config.operatorHost ?? 'localhost'}:${config.port}`;
    out(enrolmentLink(origin, account.enrolmentCode!));
    process.stderr.write(`operator "${escapeForTerminal(values.name)}" created; enrol with the link above once, until ${account.enrolmentExpiresAt!.toISOString()}\n`);
  } finally {
    await db.close();
  }
}

function printAccounts(accounts: { id: string; name: string; email: string | null; state: string; roles: { admin: boolean; handler: boolean }; officers: string[]; lastSignInAt: string | null }[]) {
  if (values.json) return out(jsonForTerminal(accounts));
  if (!accounts.length) return out('no accounts');
  for (const a of accounts) {
    const roles = [a.roles.admin ? 'admin' : '', a.roles.handler ? 'handler' : ''].filter(Boolean).join('+') || 'none';
    out(escapeForTerminal(`${a.id}  ${a.state.padEnd(8)} ${roles.padEnd(13)} ${a.email ?? '-'}  ${a.name}  officers: ${a.officers.length ? a.officers.join(',') : 'all'}  last sign-in: ${a.lastSignInAt ?? 'never'}`));
  }
}

async function administration(): Promise<boolean> {
  switch (command) {
    case 'create-operator':
      await createOperator();
      return true;
    case 'accounts':
      printAccounts((await adminApi('GET', `${companyPath()}/accounts`)).accounts);
      return true;
    case 'invite': {
      if (!values.name || !values.email) usageError('invite needs --name NAME and --email ADDRESS', SYNOPSIS);
      printInvitation(await adminApi('POST', `${companyPath()}/accounts`, { name: values.name, email: values.email, officers: values.officer ?? [], admin: !!values.admin, handler: !values['no-cases'] }));
      return true;
    }
    case 'set-officers': {
      const a = await adminApi('PATCH', await accountPath(), { officers: values.officer ?? [] });
      out(values.json ? jsonForTerminal(a) : `officers of ${a.email ?? a.id}: ${a.officers.length ? a.officers.join(', ') : 'all'}`);
      return true;
    }
    case 'disable':
    case 'enable': {
      const a = await adminApi('POST', `${await accountPath()}/${command}`);
      out(values.json ? jsonForTerminal(a) : `${a.email ?? a.id} is now ${a.state}`);
      return true;
    }
    case 'remove':
      await adminApi('DELETE', await accountPath());
      out(`removed ${args[0]}`);
      return true;
    case 'reset': {
      const what = values.what ?? 'secondFactor';
      if (what !== 'password' && what !== 'secondFactor') usageError('--what is password or secondFactor', SYNOPSIS);
      printInvitation(await adminApi('POST', `${await accountPath()}/reset`, { what }));
      return true;
    }
    case 'end-sessions': {
      const r = await adminApi('POST', `${await accountPath()}/sessions/end`);
      out(`${r.sessionsEnded} session(s) ended`);
      return true;
    }
    case 'tokens': {
      const { tokens } = await adminApi('GET', `${await accountPath()}/tokens`);
      if (values.json) out(jsonForTerminal(tokens));
      else if (!tokens.length) out('no tokens');
      else for (const t of tokens) out(escapeForTerminal(`${t.id}  ${t.state.padEnd(7)} made by ${t.madeBy.padEnd(8)} expires ${t.expiresAt}  last used ${t.lastUsedAt ?? 'never'}  ${t.label}`));
      return true;
    }
    case 'create-token': {
      const t = await adminApi('POST', `${await accountPath()}/tokens`, { label: values.label ?? 'automation' });
      out(t.token);
      process.stderr.write(`token ${t.id} made for automation; it works until ${t.expiresAt}; keep it secret, it is shown only once\n`);
      return true;
    }
    case 'revoke-token': {
      need(2, 'an account and a token id');
      const t = await adminApi('DELETE', `${await accountPath()}/tokens/${encodeURIComponent(args[1]!)}`);
      out(`token ${t.id} is ${t.state}`);
      return true;
    }
    case 'trail': {
      const { entries } = await adminApi('GET', `${companyPath()}/trail`);
      if (values.json) out(jsonForTerminal(entries));
      else for (const e of entries) out(escapeForTerminal(`${e.at}  ${e.action.padEnd(17)} by ${e.actor.name} (${e.actor.role})${e.target ? `  on ${e.target.name ?? e.target.id}` : ''}  ${JSON.stringify(e.detail)}`));
      return true;
    }
    default:
      return false;
  }
}

if (await administration()) process.exit(0);

switch (command) {
  case 'list': {
    const { cases } = (await (await api('GET', '/api/handler/cases')).json()) as { cases: any[] };
    if (values.json) out(jsonForTerminal(cases));
    else if (!cases.length) out('no cases');
    else for (const c of cases) out(`${c.caseNumber}  ${c.status.padEnd(29)} ${c.submission.type.padEnd(11)} ${c.created}${c.pendingWhistleblowerAction ? '  answer wanted' : ''}`);
    break;
  }
  case 'show': {
    need(1, 'a case number');
    const c = (await (await api('GET', `/api/handler/cases/${caseNo(args[0]!)}`)).json()) as CaseView;
    printCase(c);
    if (values.save) {
      mkdirSync(values.save, { recursive: true });
      for (const f of c.files) {
        const res = await api('GET', `/api/handler/cases/${caseNo(c.caseNumber)}/files/${f.id}`);
        const dest = freeName(values.save, f.name);
        await pipeline(Readable.fromWeb(res.body as never), createWriteStream(dest, { mode: 0o600 }));
        process.stderr.write(`saved ${dest}\n`);
      }
    }
    break;
  }
  case 'status': {
    need(2, 'a case number and a status');
    const c = (await (await api('PUT', `/api/handler/cases/${caseNo(args[0]!)}/status`, undefined, { status: args[1]!.toUpperCase() })).json()) as CaseView;
    out(`case ${c.caseNumber} is now ${String(c.status)}`);
    break;
  }
  case 'report': {
    need(2, 'a case number and the report text');
    const c = (await (await api('PUT', `/api/handler/cases/${caseNo(args[0]!)}/report`, undefined, { text: args.slice(1).join(' ') })).json()) as CaseView;
    out(`report recorded for case ${c.caseNumber} (status ${String(c.status)})`);
    break;
  }
  case 'message': {
    need(1, 'a case number');
    const fd = new FormData();
    fd.append('messageDto', JSON.stringify({ message: args.slice(1).join(' '), type: (values.type ?? 'STANDARD').toUpperCase(), answerWanted: !!values['answer-wanted'] }));
    for (const f of values.file ?? []) {
      if (!existsSync(f)) fail(`no such file: ${f}`);
      fd.append('files', await openAsBlob(f), path.basename(f));
    }
    const { message } = (await (await api('POST', `/api/handler/cases/${caseNo(args[0]!)}/messages`, fd)).json()) as { message: { id: string; type: string; files: unknown[] } };
    out(`sent ${message.type} message ${message.id}${message.files.length ? ` with ${message.files.length} file(s)` : ''}`);
    break;
  }
  case 'create-account':
    await createAccount();
    break;
  default:
    usageError(`unknown command "${command}"`, SYNOPSIS);
}
