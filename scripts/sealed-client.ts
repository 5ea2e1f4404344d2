/**
 * A scripted client of sealed cases, runnable (docs/api.md "A scripted client of sealed
 * cases"): `npm run sealed-client -- COMMAND --url ORIGIN …` (or `npx tsx
 * scripts/sealed-client.ts …`) from the repository root. It imports core/ only, never
 * server/: what it shows an integrator is what a client can do without the server's
 * code. The functions are in scripts/lib/sealed-client.ts;
 * test/server/sealed-client.test.ts runs them against a real server.
 *
 * The password comes from CASE_PASSWORD or the first line of stdin, never from the
 * command line (where `ps` and the shell's history would show it). One derivation per run.
 */
import { parseArgs } from 'node:util';
import { EnvelopeError } from '../core/crypto/index.ts';
import { createInterface } from 'node:readline';
import { deriveForCase, openMyCase, sendSealedCase, sendSealedMessage, SealedClientError } from './lib/sealed-client.ts';

const SYNOPSIS = 'npm run sealed-client -- report | open --case N | message --case N TEXT --url ORIGIN (--help for all)';
const USAGE = `usage: npm run sealed-client -- COMMAND --url ORIGIN [options]

  report --officer ID --description TEXT [--relation R] [--violation V] [--anonymous]
                  seals a new case in this process and sends it; prints its case number
                  (followed, with the password, unless --anonymous)
  open --case N   signs in by verifier, opens the case and its messages; prints JSON
  message --case N TEXT
                  signs in, seals TEXT under the case's key and sends it

The password: CASE_PASSWORD, else the first line of stdin. ORIGIN: the company's portal.`;

function usage(message?: string): never {
  // One line, exit 2, no stack trace: the manners of the project's other CLIs (test/server/cli-usage.test.ts).
  if (message) process.stderr.write(`error: ${message}; usage: ${SYNOPSIS}\n`);
  else process.stdout.write(`${USAGE}\n`);
  process.exit(message ? 2 : 0);
}

function parse() {
  try {
    return parseArgs({
      options: {
        url: { type: 'string' },
        officer: { type: 'string' },
        description: { type: 'string' },
        relation: { type: 'string' },
        violation: { type: 'string' },
        anonymous: { type: 'boolean' },
        case: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    const e = err as { code?: string; message?: string };
    const option = /'(-[^' ]+)/.exec(e.message ?? '')?.[1];
    usage(
      e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION'
        ? `unknown option ${option ?? ''}`.trim()
        : e.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && option
          ? `option ${option} needs a value`
          : 'bad options',
    );
  }
}
const { values, positionals } = parse();

async function password(): Promise<string> {
  const env = process.env.CASE_PASSWORD;
  if (env) return env;
  const rl = createInterface({ input: process.stdin });
  for await (const line of rl) {
    rl.close();
    if (line) return line;
  }
  usage('a password is needed: CASE_PASSWORD or a line on stdin');
}

if (values.help) usage();
const [command, ...rest] = positionals;
const origin = values.url?.replace(/\/+$/, '');
if (!command) usage('missing command');
if (!origin) usage('--url ORIGIN is needed');

try {
  switch (command) {
    case 'report': {
      if (!values.officer || !values.description) usage('report needs --officer ID and --description TEXT');
      const sent = await sendSealedCase(origin, {
        officerId: values.officer,
        details: {
          description: values.description,
          violation: values.violation ?? null,
          repeatedViolations: false,
          whistleblowerRelation: values.relation ?? 'Other',
          reportedPersons: [],
          reportedUnit: null,
        },
        ...(values.anonymous ? {} : { password: await password() }),
      });
      process.stdout.write(`${sent.caseNumber}\n`);
      break;
    }
    case 'open':
    case 'message': {
      if (!values.case) usage(`${command} needs --case N`);
      if (command === 'message' && !rest.length) usage('message needs TEXT');
      const derived = await deriveForCase(origin, values.case, await password());
      const { tokens, view, dataKey, opened } = await openMyCase(origin, derived);
      if (command === 'open') {
        process.stdout.write(`${JSON.stringify(opened, null, 2)}\n`);
      } else {
        const { id } = await sendSealedMessage(origin, tokens.access_token, { dataKey, caseId: view.caseId }, rest.join(' '));
        process.stdout.write(`sent message ${id}\n`);
      }
      break;
    }
    default:
      usage(`unknown command "${command}"`);
  }
} catch (err) {
  const refused = (err as { cause?: { code?: string } })?.cause?.code === 'ECONNREFUSED';
  if (!(err instanceof SealedClientError) && !(err instanceof EnvelopeError) && !refused) throw err;
  // An EnvelopeError here: the server's wrap or a part does not open with this key (its reason names why).
  process.stderr.write(`error: ${refused ? `no server answers at ${origin}` : err instanceof EnvelopeError ? `the case's key does not open: ${err.reason}` : (err as Error).message}\n`);
  process.exit(1);
}
