/**
 * The last step before a server-keyed case is sealed by `retire-master` (issue 37 Build
 * 7; docs/decisions/sealed-migration.md "Mail for sealed cases"): while the master key
 * still opens its identity, the address its reporter gave for notifications is sealed
 * to the mail key into `case_notify`, as a browser would have, so the reporter's news
 * mails go on after the retirement. Only for what a server-keyed case would mail today:
 * a case not closed, followed, whose identity asks for mail with an e-mail. Nothing is
 * logged or printed but the count.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Whistleblower } from '../../machines/schema.ts';
import type { CaseCrypto } from '../crypto/case-crypto.ts';
import type { CaseKeys } from '../crypto/case-keys.ts';
import { fromBase64, sealNotifyAddress } from '../../core/crypto/index.ts';
import { COLUMNS } from '../cases/service.ts';
import { LANGUAGE_COLUMN } from './notify.ts';
import type { MailKeys } from './mail-key.ts';

export async function keepNotifyAddresses(db: Kysely<DB>, crypto: CaseCrypto, caseKeys: CaseKeys, mailKeys: MailKeys): Promise<number> {
  const rows = await db
    .selectFrom('report_case as c')
    .innerJoin('case_account as a', 'a.case_id', 'c.id')
    .leftJoin('case_notify as n', 'n.case_id', 'c.id')
    .select(['c.id', 'c.wrapped_key', 'c.whistleblower_enc', 'c.language_enc'])
    .where('c.sealed', '=', false)
    .where('c.status', '!=', 'CLOSED')
    .where('c.whistleblower_enc', 'is not', null)
    .where('n.case_id', 'is', null)
    .execute();
  let kept = 0;
  for (const r of rows) {
    const key = await caseKeys.unwrap(r.id, r.wrapped_key);
    const who = crypto.openJson<Whistleblower>(key, r.id, COLUMNS.whistleblower, r.whistleblower_enc!);
    if (!who.notification || !who.email) continue;
    const language = r.language_enc ? crypto.open(key, r.id, LANGUAGE_COLUMN, r.language_enc).toString('utf8') : undefined;
    // The mail key is made only when there is an address to seal to it.
    const n = await sealNotifyAddress(await mailKeys.publicKey(), r.id, who.email, language);
    await db.insertInto('case_notify').values({ case_id: r.id, mail_key_id: n.keyId, box: Buffer.from(fromBase64(n.box)), created_at: new Date() }).onConflict((oc) => oc.column('case_id').doNothing()).execute();
    kept++;
  }
  return kept;
}
