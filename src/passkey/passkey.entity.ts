import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

import { DATETIME } from '../common/datetime';

/** `sys_user_passkey`: one row per registered passkey (WebAuthn credential) of a user. */
@Entity('sys_user_passkey')
@Index('idx_passkey_user', ['userId'])
@Index('idx_passkey_credential', ['credentialHash'], { unique: true })
export class PasskeyEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Column({ name: 'user_id', type: 'varchar', length: 36 })
  userId: string;

  @Column({ type: 'varchar', length: 64 })
  name: string;

  /** The credential id (base64url) as the authenticator gave it; up to 1023 bytes, so not indexed itself. */
  @Column({ name: 'credential_id', type: 'text' })
  credentialId: string;

  /** SHA-256 (hex) of credentialId: the unique look-up key of a login. */
  @Column({ name: 'credential_hash', type: 'varchar', length: 64 })
  credentialHash: string;

  /** The COSE public key, base64url. */
  @Column({ name: 'public_key', type: 'text' })
  publicKey: string;

  /** The signature counter last seen (0 for authenticators that keep none). */
  @Column({ type: 'bigint', default: 0 })
  counter: string | number;

  /** Comma-separated transports the authenticator named (usb, nfc, ble, internal, hybrid). */
  @Column({ type: 'varchar', length: 255, default: '' })
  transports: string;

  /** `singleDevice` or `multiDevice` (synced), as the library reports it. */
  @Column({ name: 'device_type', type: 'varchar', length: 16 })
  deviceType: string;

  @Column({ name: 'backed_up', type: 'boolean', default: false })
  backedUp: boolean;

  @Column({ ...DATETIME, name: 'create_time' })
  createTime: Date;

  @Column({ ...DATETIME, name: 'last_used_time', nullable: true })
  lastUsedTime: Date | null;
}
