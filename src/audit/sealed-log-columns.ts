import { Column } from 'typeorm';

import { ExtensionPoint } from '../common/extension-point';

/** The two tables whose rows are sealed (docs/security.md#sealed-logs). */
export type SealedTable = 'sys_login_log' | 'sys_audit_log';

/**
 * The seal columns both log tables carry. `rowMac` is written with the row; the chain columns by
 * the sealer shortly after (src/log-seal). Never selected by the lists and exports: only the
 * seal's own queries read them.
 */
export abstract class SealedLogColumns {
  /** HMAC of the row's fields under AUDIT_HMAC_KEY, written with the row; null on rows older than sealing. */
  @Column({ name: 'row_mac', type: 'varchar', length: 64, nullable: true, select: false })
  rowMac?: string | null;

  /** The row's place in its table's chain (1, 2, …; unique); null until sealed. */
  @Column({ name: 'seal_seq', type: 'bigint', nullable: true, select: false })
  sealSeq?: string | null;

  /** The id of the row before it in the chain (0 for the first). */
  @Column({ name: 'seal_prev', type: 'bigint', nullable: true, select: false })
  sealPrev?: string | null;

  /** HMAC of the row's place, its id, the previous row's id and seal, and rowMac. */
  @Column({ type: 'varchar', length: 64, nullable: true, select: false })
  seal?: string | null;
}

/** The MAC a log row is written with. */
export interface LogRowSeal {
  /** Hex HMAC of `fields` (the table's own list, see sealFields of each entity). */
  rowMac(table: SealedTable, fields: readonly unknown[]): string;
}

/** Filled by the seal module (src/log-seal); without it rows are written without a MAC. */
export const LOG_ROW_SEAL = new ExtensionPoint<LogRowSeal>('LOG_ROW_SEAL');

// A lone UTF-16 surrogate, which no database stores as it is.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * The row with each string as the database will give it back: a lone surrogate (a text cut in the
 * middle of a character, or sent so on purpose) becomes U+FFFD, as both drivers write it. The MAC is
 * taken of this form, so that a row reads back exactly as it was sealed.
 */
export function storedForm<T extends object>(row: T): T {
  const out = { ...row } as Record<string, unknown>;
  for (const [key, value] of Object.entries(out)) {
    if (typeof value === 'string') out[key] = value.replace(LONE_SURROGATE, '\uFFFD');
  }
  return out as T;
}
