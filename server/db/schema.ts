/**
 * Table types for Kysely. Columns named `*_enc` hold AES-256-GCM ciphertext
 * (server/crypto), never plain text. Each module's tables are added with its migration.
 */
import type { ColumnType, Generated } from 'kysely';

export type Timestamp = ColumnType<Date, Date | string, Date | string>;

export interface MetaTable {
  key: string;
  value: string;
}

// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface DB {
  meta: MetaTable;
}

export type { Generated };
