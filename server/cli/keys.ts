/**
 * npm run keys -- rotate-master | retire-master | rotate-mail
 *
 * Puts every case's data key and the identity provider's key store under a new
 * master key (server/crypto/master-key.ts). Offline only: every server process on
 * this database must be stopped, since each holds the master key in memory.
 *
 * - Generated key (no MASTER_KEY): a new key is generated into the data folder; the
 *   old one is gone once the rotation is done.
 * - MASTER_KEY set: the new key comes from NEW_MASTER_KEY (base64, 32 bytes); start
 *   every server with it as MASTER_KEY afterwards. A server started with the old key
 *   refuses to run.
 *
 * retire-master (server/keys/retire-master.ts): runs the wrap migration once, reports
 * what still needs the master key and exits 1 while anything does; once nothing does,
 * seals every case, moves the server's own secrets to a fresh key, destroys every
 * shred key and the old key file. Offline too, with the same MASTER_KEY rules.
 *
 * rotate-mail (server/mail/rotate-mail-key.ts): a new mail key pair in the keys folder,
 * every sealed case's notification address and outbox row sealed again to it. Offline;
 * needs no master key.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fstatSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { openDatabase } from '../db/database.ts';
import { loadMasterKey, masterKeyPath, nextKeyPath, rotateMasterKey } from '../crypto/master-key.ts';
import { CaseCrypto } from '../crypto/case-crypto.ts';
import { CaseKeys, keysDirOf } from '../crypto/case-keys.ts';
import { cliConfig, fail, parseCli, runningServer, usageError } from './common.ts';
import { runningServers } from '../presence.ts';
import { migrateWraps } from '../keys/migrate-wraps.ts';
import { masterKeyUses, sealEveryCase } from '../keys/retire-master.ts';
import { MailKeys } from '../mail/mail-key.ts';
import { rotateMail } from '../mail/rotate-mail-key.ts';
import { keepNotifyAddresses } from '../mail/keep-notify.ts';

const USAGE = `usage:
  npm run keys -- rotate-master    re-wrap every case's data key under a new master key
                                   (stop the server first; with MASTER_KEY set, give the
                                   new key in NEW_MASTER_KEY)
  npm run keys -- retire-master    report what still needs the master key (exit 1 while
                                   anything does); once nothing does, seal every case and
                                   destroy the key (stop the server first; with MASTER_KEY
                                   set, give the key for the server's own secrets in
                                   NEW_MASTER_KEY)
  npm run keys -- rotate-mail      make a new mail key and seal the sealed cases'
                                   notification addresses to it (stop the server first)`;

const SYNOPSIS = 'npm run keys -- rotate-master | retire-master | rotate-mail';

const { values, positionals } = parseCli({ options: { help: { type: 'boolean', short: 'h' } }, allowPositionals: true }, SYNOPSIS);
if (values.help) {
  process.stdout.write(USAGE + '\n');
  process.exit(0);
}
if (!positionals[0]) usageError('missing command', SYNOPSIS);
const command = positionals[0];
if (command !== 'rotate-master' && command !== 'retire-master' && command !== 'rotate-mail') usageError(`unknown command "${positionals[0]}"`, SYNOPSIS);
if (positionals.length > 1) usageError(`unexpected argument "${positionals[1]}"`, SYNOPSIS);

const config = cliConfig();
const running = runningServer(config);
if (running) fail(`a server (pid ${running.pid}) is running on ${config.dataDir}: stop every server process first`);

if (command === 'rotate-mail') {
  const opened = await openDatabase({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
  const others = await runningServers(opened.db);
  if (others.length) {
    await opened.close();
    fail(`${others.length} server process(es) run on this database (${others.map((o) => `pid ${o.pid} on ${o.hostname}`).join(', ')}): stop every server process first`);
  }
  try {
    const done = await rotateMail(opened.db, MailKeys.inKeysDir(keysDirOf(config)).file);
    if (done.settled !== 'none') process.stdout.write(`an earlier rotation cut short was ${done.settled === 'finished' ? 'finished' : 'undone'} first.\n`);
    process.stdout.write(`sealed ${done.boxes} notification address(es) and queued mail(s) to a new mail key (${done.keyId.slice(0, 16)}…).\nBackups taken before now hold the old mail key: it opens the addresses in them.\n`);
  } catch (err) {
    await opened.close();
    fail((err as Error).message);
  }
  await opened.close();
  process.exit(0);
}

let newKey: Buffer;
if (config.masterKey) {
  const given = process.env.NEW_MASTER_KEY?.trim();
  if (!given) fail('MASTER_KEY is set: give the new key in NEW_MASTER_KEY (base64 of 32 random bytes, e.g. `openssl rand -base64 32`)');
  newKey = Buffer.from(given, 'base64');
  if (newKey.length !== 32) fail(`NEW_MASTER_KEY must be 32 bytes in base64 (got ${newKey.length} bytes)`);
} else {
  if (process.env.NEW_MASTER_KEY) fail('NEW_MASTER_KEY is only for a MASTER_KEY from the environment; the key file gets a generated key');
  newKey = randomBytes(32);
}

const opened = await openDatabase({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
// On PostgreSQL the servers may run on other machines: each keeps a row fresh in the database.
const others = await runningServers(opened.db);
if (others.length) {
  await opened.close();
  fail(`${others.length} server process(es) run on this database (${others.map((o) => `pid ${o.pid} on ${o.hostname}`).join(', ')}): stop every server process first`);
}
try {
  const oldKey = await loadMasterKey({ fromEnv: config.masterKey, dataDir: config.dataDir, keyFile: config.masterKeyFile, db: opened.db });
  const shreds = new CaseKeys(new CaseCrypto(oldKey), keysDirOf(config));
  if (command === 'retire-master') {
    await retire(opened.db, oldKey, shreds);
    await opened.close();
    process.exit(0);
  }
  if (config.masterKey) {
    const done = await rotateMasterKey(opened.db, oldKey, newKey, shreds);
    process.stdout.write(`re-wrapped ${done.cases} case keys and ${done.secrets} provider key store(s).\nStart every server with MASTER_KEY set to the new key now.\n`);
  } else {
    // The new key is on disk before the commit, the old one replaced after it: a
    // crash in between is settled at the next start (settleKeyFile).
    const keyFile = masterKeyPath({ dataDir: config.dataDir, keyFile: config.masterKeyFile });
    const next = nextKeyPath(keyFile);
    const fd = openSync(next, 'wx', 0o600);
    try {
      writeSync(fd, newKey.toString('base64') + '\n');
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    let done;
    try {
      done = await rotateMasterKey(opened.db, oldKey, newKey, shreds);
    } catch (err) {
      rmSync(next, { force: true });
      throw err;
    }
    renameSync(next, keyFile);
    process.stdout.write(`re-wrapped ${done.cases} case keys and ${done.secrets} provider key store(s) under a new ${path.basename(keyFile)}.\n`);
  }
  process.stdout.write('Backups taken before now still need the old master key.\n');
} catch (err) {
  await opened.close();
  fail((err as Error).message);
}
await opened.close();

/** Overwrites a key file in place and flushes it before it is replaced: its bytes do not stay in the file's blocks. */
function overwrite(file: string): void {
  let fd: number;
  try {
    fd = openSync(file, 'r+');
  } catch {
    return; // no file: nothing to overwrite
  }
  try {
    writeSync(fd, randomBytes(Math.max(fstatSync(fd).size, 64)), 0);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

async function retire(db: Parameters<typeof masterKeyUses>[0], oldKey: Buffer, shreds: CaseKeys): Promise<void> {
  const out = (line: string) => process.stdout.write(line + '\n');
  const migrated = await migrateWraps({ db, caseKeys: shreds });
  if (migrated.wraps) out(`wrapped ${migrated.cases} case key(s) to ${migrated.wraps} certified or recovery key(s) first.`);
  const uses = await masterKeyUses(db);
  for (const n of uses.notes) out(`note: ${n}`);
  if (uses.blocking.length) {
    for (const b of uses.blocking) out(`needs the master key: ${b}`);
    throw new Error(`the master key is still needed (${uses.blocking.length} item(s) above); nothing was changed`);
  }
  const keyFile = masterKeyPath({ dataDir: config.dataDir, keyFile: config.masterKeyFile });
  const next = nextKeyPath(keyFile);
  if (!config.masterKey) {
    const fd = openSync(next, 'wx', 0o600);
    try {
      writeSync(fd, newKey.toString('base64') + '\n');
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }
  // The reporters' notification addresses, sealed to the mail key while the master key still opens the identities: their mails go on.
  const kept = await keepNotifyAddresses(db, new CaseCrypto(oldKey), shreds, MailKeys.inKeysDir(keysDirOf(config)));
  if (kept) out(`sealed ${kept} reporter notification address(es) to the mail key, so their mails go on.`);
  const sealed = await sealEveryCase(db);
  let done;
  try {
    // No case key is left under the old key: the rotation moves only the server's own secrets.
    done = await rotateMasterKey(db, oldKey, newKey, shreds);
  } catch (err) {
    if (!config.masterKey) rmSync(next, { force: true });
    throw err;
  }
  for (const id of sealed) await shreds.destroy(id);
  // Any shred key left (a case deleted while its file stayed): none protects anything now.
  for (const id of await shreds.listOlderThan(-1)) await shreds.destroy(id);
  oldKey.fill(0);
  out(`sealed ${sealed.length} case(s): each opens only with its wraps (recovery key, certified handler keys, reporter).`);
  out(`moved the server's own secrets (${done.secrets} provider key store(s), handlers' TOTP secrets) to a fresh key; destroyed every case's shred key.`);
  if (config.masterKey) {
    out('Start every server with MASTER_KEY set to NEW_MASTER_KEY now, and delete the old MASTER_KEY from wherever it is kept (secret store, environment files, shell history): this command cannot.');
  } else {
    overwrite(keyFile);
    renameSync(next, keyFile);
    out(`destroyed the master key: ${path.basename(keyFile)} now holds a fresh key for the server's own secrets, under which no case key was ever wrapped.`);
  }
  out('Backups taken before now still hold the old master key and the shred keys beside the database: whoever has such a backup opens the cases in it. Destroy them, or keep them as securely as the key itself; a copy-on-write file system or an SSD may keep the old key file\'s blocks too.');
}
