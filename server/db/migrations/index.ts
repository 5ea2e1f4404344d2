import type { Migration } from 'kysely';
import * as m0001 from './0001_meta.ts';
import * as m0002 from './0002_core.ts';
import * as m0003 from './0003_file_position.ts';
import * as m0040 from './0040_file_metadata_remaining.ts';
import * as m0041 from './0041_record_versions.ts';
import * as m0100 from './0100_identity.ts';
import * as m0101 from './0101_identity_account_index.ts';
import * as m0102 from './0102_case_account_token_generation.ts';

/**
 * Every migration, in order. Names sort lexically; never rename or edit one that
 * has shipped: add a new one.
 */
export const migrations: Record<string, Migration> = {
  '0001_meta': m0001,
  '0002_core': m0002,
  '0003_file_position': m0003,
  '0040_file_metadata_remaining': m0040,
  '0041_record_versions': m0041,
  '0100_identity': m0100,
  '0101_identity_account_index': m0101,
  '0102_case_account_token_generation': m0102,
};
