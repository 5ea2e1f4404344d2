/**
 * `npm run keys -- rotate-mail` (offline; docs/operations.md "The mail key"): a new mail
 * key pair, and every box sealed to the old one sealed again to it in one transaction:
 * the sealed cases' notification addresses (`case_notify`) and their outbox rows (with
 * the address box a queued news mail carries). Nothing is logged or printed but counts.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { fromBase64, sealNotifyAddress, toBase64, utf8 } from '../../core/crypto/index.ts';
import { existsSync, renameSync, rmSync } from 'node:fs';
import { MailKeys, rotateMailKey } from './mail-key.ts';
import { outboxPurpose, type SealedOutboxItem } from './outbox.ts';

/**
 * A rotation a crash cut short leaves `mail.key.next`: after its commit the rows are
 * under it (rename it over the file), before the commit under the old pair (drop it).
 * The rows tell: the address rows name their key id; without any, an outbox row of a
 * sealed case opens under the one it is sealed to.
 */
export async function settleMailKey(db: Kysely<DB>, file: string): Promise<'none' | 'finished' | 'dropped'> {
  const next = `${file}.next`;
  if (!existsSync(next)) return 'none';
  const nextKeys = new MailKeys(next);
  const nextId = (await nextKeys.publicKey()).keyId;
  let committed: boolean;
  if (await db.selectFrom('case_notify').select('case_id').limit(1).executeTakeFirst()) {
    committed = !!(await db.selectFrom('case_notify').select('case_id').where('mail_key_id', '=', nextId).limit(1).executeTakeFirst());
  } else {
    const m = await db.selectFrom('mail_outbox').innerJoin('report_case', 'report_case.id', 'mail_outbox.case_id').where('report_case.sealed', '=', true).select(['mail_outbox.id', 'mail_outbox.case_id', 'mail_outbox.message_enc']).limit(1).executeTakeFirst();
    committed = !!m && (await nextKeys.open(m.case_id, outboxPurpose(m.id), m.message_enc).then(() => true, () => false));
  }
  if (committed) renameSync(next, file);
  else rmSync(next, { force: true });
  return committed ? 'finished' : 'dropped';
}

export async function rotateMail(db: Kysely<DB>, file: string): Promise<{ boxes: number; keyId: string; settled: 'none' | 'finished' | 'dropped' }> {
  const settled = await settleMailKey(db, file);
  const done = await rotateMailKey(file, async (oldKeys, newKeys) => {
    const newPublic = await newKeys.publicKey();
    const resealNotify = async (caseId: string, box: Uint8Array) => {
      const n = await oldKeys.openNotify(caseId, box);
      return fromBase64((await sealNotifyAddress(newPublic, caseId, n.address, n.language)).box);
    };
    return db.transaction().execute(async (trx) => {
      let boxes = 0;
      for (const row of await trx.selectFrom('case_notify').select(['case_id', 'box']).execute()) {
        const box = await resealNotify(row.case_id, row.box);
        await trx.updateTable('case_notify').set({ box: Buffer.from(box), mail_key_id: newPublic.keyId }).where('case_id', '=', row.case_id).execute();
        boxes++;
      }
      const mails = await trx
        .selectFrom('mail_outbox')
        .innerJoin('report_case', 'report_case.id', 'mail_outbox.case_id')
        .where('report_case.sealed', '=', true)
        .select(['mail_outbox.id', 'mail_outbox.case_id', 'mail_outbox.message_enc'])
        .execute();
      for (const m of mails) {
        const item = JSON.parse(new TextDecoder().decode(await oldKeys.open(m.case_id, outboxPurpose(m.id), m.message_enc))) as SealedOutboxItem;
        if ('reporterNews' in item) item.reporterNews.notify = toBase64(await resealNotify(m.case_id, fromBase64(item.reporterNews.notify)));
        const sealed = await newKeys.seal(m.case_id, outboxPurpose(m.id), utf8(JSON.stringify(item)));
        await trx.updateTable('mail_outbox').set({ message_enc: sealed }).where('id', '=', m.id).execute();
        boxes++;
      }
      return boxes;
    });
  });
  return { ...done, settled };
}
