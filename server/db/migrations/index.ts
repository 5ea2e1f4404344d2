import type { Migration } from 'kysely';
import * as m0001 from './0001_meta.ts';
import * as m0002 from './0002_core.ts';
import * as m0003 from './0003_file_position.ts';
import * as m0010 from './0010_handler_workspace.ts';
import * as m0020 from './0020_mail_outbox.ts';
import * as m0021 from './0021_case_deletion.ts';
import * as m0030 from './0030_server_process.ts';
import * as m0070 from './0070_abuse_guards.ts';
import * as m0050 from './0050_company_change_notify.ts';
import * as m0040 from './0040_file_metadata_remaining.ts';
import * as m0041 from './0041_record_versions.ts';
import * as m0100 from './0100_identity.ts';
import * as m0101 from './0101_identity_account_index.ts';
import * as m0102 from './0102_case_account_token_generation.ts';
import * as m0110 from './0110_oidc_payload_sealed.ts';
import * as m0130 from './0130_resumable_uploads.ts';
import * as m0135 from './0135_private_upload_sessions.ts';
import * as m0140 from './0140_case_change_notify.ts';
import * as m0150 from './0150_upload_limits.ts';
import * as m0160 from './0160_key_log.ts';
import * as m0170 from './0170_r37_reporter_keys.ts';
import * as m0180 from './0180_h37_handler_keys.ts';
import * as m0190 from './0190_a39_accounts.ts';
import * as m0200 from './0200_c39_company_versions.ts';
import * as m0220 from './0220_f41_file_chunks.ts';
import * as m0230 from './0230_s41_inbox_page.ts';
import * as m0240 from './0240_b37_sealed_cases.ts';
import * as m0280 from './0280_f37_sealed_uploads.ts';
import * as m0290 from './0290_n37_case_notify.ts';
import * as m0330 from './0330_w37_sealed_audit.ts';
import * as m0360 from './0360_e37_key_epochs.ts';
import * as m0370 from './0370_n38_assignment.ts';
import * as m0380 from './0380_s37s_statistics_key.ts';
import * as m0430 from './0430_n38_case_notes.ts';
import * as m0440 from './0440_rec38_record_author.ts';
import * as m0450 from './0450_t38_reply_templates.ts';
import * as m0460 from './0460_entry38_entered_reports.ts';
import * as m0510 from './0510_stat37_statistics_rotation.ts';
import * as m0530 from './0530_p41_purge_cascade_indexes.ts';
import * as m0540 from './0540_nf38_note_files.ts';
import * as m0550 from './0550_voice40_transcripts.ts';

/**
 * Every migration, in order. Names sort lexically; never rename or edit one that
 * has shipped: add a new one.
 */
export const migrations: Record<string, Migration> = {
  '0001_meta': m0001,
  '0002_core': m0002,
  '0003_file_position': m0003,
  '0010_handler_workspace': m0010,
  '0020_mail_outbox': m0020,
  '0021_case_deletion': m0021,
  '0030_server_process': m0030,
  '0070_abuse_guards': m0070,
  '0050_company_change_notify': m0050,
  '0040_file_metadata_remaining': m0040,
  '0041_record_versions': m0041,
  '0100_identity': m0100,
  '0101_identity_account_index': m0101,
  '0102_case_account_token_generation': m0102,
  '0110_oidc_payload_sealed': m0110,
  '0130_resumable_uploads': m0130,
  '0135_private_upload_sessions': m0135,
  '0140_case_change_notify': m0140,
  '0150_upload_limits': m0150,
  '0160_key_log': m0160,
  '0170_r37_reporter_keys': m0170,
  '0180_h37_handler_keys': m0180,
  '0190_a39_accounts': m0190,
  '0200_c39_company_versions': m0200,
  '0220_f41_file_chunks': m0220,
  '0230_s41_inbox_page': m0230,
  '0240_b37_sealed_cases': m0240,
  '0280_f37_sealed_uploads': m0280,
  '0290_n37_case_notify': m0290,
  '0330_w37_sealed_audit': m0330,
  '0360_e37_key_epochs': m0360,
  '0370_n38_assignment': m0370,
  '0380_s37s_statistics_key': m0380,
  '0430_n38_case_notes': m0430,
  '0440_rec38_record_author': m0440,
  '0450_t38_reply_templates': m0450,
  '0460_entry38_entered_reports': m0460,
  '0510_stat37_statistics_rotation': m0510,
  '0530_p41_purge_cascade_indexes': m0530,
  '0540_nf38_note_files': m0540,
  '0550_voice40_transcripts': m0550,
};
