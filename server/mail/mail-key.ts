/**
 * The mail key (issue 37 Build 3; docs/decisions/blind-server.md "Mail for sealed
 * cases", docs/operations.md "The mail key"): an ECDH P-256 pair the mail worker
 * holds. Browsers seal the reporter's notification address to its public half
 * (core/crypto/mail.ts); the server seals its outbox rows of sealed cases to it too
 * (it has no key of such a case). The private half opens nothing but those.
 *
 * The pair lives in `mail.key` in the keys folder (KEYS_DIR, else FILES_DIR/keys:
 * shared by every server process, as the shred keys are), JSON of base64 SPKI and
 * PKCS#8, mode 0600, made on first use with O_EXCL (two processes that race agree on
 * one) and flushed before anything is sealed to it. It is not wrapped under the master
 * key: `retire-master` destroys that key and the mail worker must still send.
 *
 * Invariants: no address or mail text is ever logged from here; a box sealed to another
 * key, case or purpose does not open (EnvelopeError).
 */
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { fromBase64, keyId, openFromMailKey, openNotifyAddress, sealToMailKey, toBase64, type Bytes, type MailKey as PublicMailKey, type NotifyAddress } from '../../core/crypto/index.ts';

export const MAIL_KEY_FILE = 'mail.key';
const ECDH = { name: 'ECDH', namedCurve: 'P-256' } as const;

interface Loaded {
  publicKey: PublicMailKey;
  spki: Bytes;
  privateKey: CryptoKey;
}

/** A fresh pair as the file holds it. */
export async function makeMailKeyFile(): Promise<string> {
  const pair = await crypto.subtle.generateKey(ECDH, true, ['deriveBits']);
  const spki = new Uint8Array(await crypto.subtle.exportKey('spki', pair.publicKey));
  const pkcs8 = new Uint8Array(await crypto.subtle.exportKey('pkcs8', pair.privateKey));
  return JSON.stringify({ v: 1, spki: toBase64(spki), pkcs8: toBase64(pkcs8) }) + '\n';
}

async function parse(text: string, file: string): Promise<Loaded> {
  let stored: { v?: unknown; spki?: unknown; pkcs8?: unknown };
  try {
    stored = JSON.parse(text);
  } catch {
    throw new Error(`${file} is not a mail key file`);
  }
  if (stored.v !== 1 || typeof stored.spki !== 'string' || typeof stored.pkcs8 !== 'string') throw new Error(`${file} is not a mail key file`);
  const spki = fromBase64(stored.spki);
  const privateKey = await crypto.subtle.importKey('pkcs8', fromBase64(stored.pkcs8), ECDH, false, ['deriveBits']);
  return { spki, privateKey, publicKey: { spki: stored.spki, keyId: await keyId(spki) } };
}

function writeNew(file: string, text: string): boolean {
  let fd: number;
  try {
    fd = openSync(file, 'wx', 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  syncDir(path.dirname(file));
  return true;
}

function syncDir(dir: string): void {
  try {
    const d = openSync(dir, 'r');
    try {
      fsyncSync(d);
    } finally {
      closeSync(d);
    }
  } catch {
    // a folder that cannot be opened for sync: the write itself stands
  }
}

export class MailKeys {
  private loaded: Promise<Loaded> | null = null;
  /** A rotation's new pair left beside the file by a crash after its commit: boxes that the current pair does not open are tried with it. */
  private pending: Promise<Loaded | null> | null = null;

  constructor(readonly file: string) {}

  static inKeysDir(keysDir: string): MailKeys {
    return new MailKeys(path.join(keysDir, MAIL_KEY_FILE));
  }

  /** The pair, made and flushed on first use. */
  private load(): Promise<Loaded> {
    this.loaded ??= (async () => {
      try {
        return await parse(readFileSync(this.file, 'utf8'), path.basename(this.file));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
      writeNew(this.file, await makeMailKeyFile());
      // Made here or by another process a moment before: the file on disk is the one.
      return parse(readFileSync(this.file, 'utf8'), path.basename(this.file));
    })().catch((err) => {
      this.loaded = null;
      throw err;
    });
    return this.loaded;
  }

  /** The public half, as browsers get it with the key log. */
  async publicKey(): Promise<PublicMailKey> {
    return (await this.load()).publicKey;
  }

  async seal(caseId: string, purpose: string, plaintext: Bytes): Promise<Buffer> {
    return Buffer.from(await sealToMailKey(await this.publicKey(), caseId, purpose, plaintext));
  }

  private nextPair(): Promise<Loaded | null> {
    this.pending ??= (async () => {
      try {
        return await parse(readFileSync(`${this.file}.next`, 'utf8'), path.basename(this.file));
      } catch {
        return null;
      }
    })();
    return this.pending;
  }

  private async withPair<T>(use: (pair: { privateKey: CryptoKey; publicKey: Bytes; keyId: string }) => Promise<T>): Promise<T> {
    const k = await this.load();
    try {
      return await use({ privateKey: k.privateKey, publicKey: k.spki, keyId: k.publicKey.keyId });
    } catch (err) {
      const next = await this.nextPair();
      if (!next) throw err;
      return use({ privateKey: next.privateKey, publicKey: next.spki, keyId: next.publicKey.keyId });
    }
  }

  async open(caseId: string, purpose: string, box: Uint8Array): Promise<Bytes> {
    return this.withPair((pair) => openFromMailKey(pair, caseId, purpose, new Uint8Array(box)));
  }

  /** The reporter's notification address: only the mail worker calls this, at send time. */
  async openNotify(caseId: string, box: Uint8Array): Promise<NotifyAddress> {
    return this.withPair((pair) => openNotifyAddress(pair, caseId, new Uint8Array(box)));
  }

  /** Forgets the pair in memory (after a rotation of the file). */
  reset(): void {
    this.loaded = null;
    this.pending = null;
  }
}

/**
 * Replaces the mail key (`npm run keys -- rotate-mail`, offline): every box sealed to
 * the old pair is opened and sealed again to a new one by `reseal` (in one transaction
 * of the caller's), with the new pair written to `mail.key.next` first and renamed over
 * the old file after the commit. A crash before the rename leaves the old file and
 * the rows under it (the transaction rolled back), or, after the commit, the next file
 * beside it: MailKeys then tries that pair for what the old one does not open, and the
 * next rotation settles it first (server/mail/rotate-mail-key.ts settleMailKey).
 */
export async function rotateMailKey(file: string, reseal: (oldKeys: MailKeys, newKeys: MailKeys) => Promise<number>): Promise<{ boxes: number; keyId: string }> {
  const oldKeys = new MailKeys(file);
  await oldKeys.publicKey();
  const next = `${file}.next`;
  // A crash left one: rows may be under either pair, which this process opens both of; replacing it would lose one.
  if (existsSync(next)) throw new Error(`${path.basename(next)} is left from a rotation that did not finish (settleMailKey settles it first)`);
  writeNew(next, await makeMailKeyFile());
  const newKeys = new MailKeys(next);
  let boxes: number;
  try {
    boxes = await reseal(oldKeys, newKeys);
  } catch (err) {
    rmSync(next, { force: true });
    throw err;
  }
  renameSync(next, file);
  syncDir(path.dirname(file));
  return { boxes, keyId: (await newKeys.publicKey()).keyId };
}
