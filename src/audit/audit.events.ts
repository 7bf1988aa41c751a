import type { AuditEntry } from './audit-log.service';

/**
 * One audit row was written: the action as it happened, with its actor, target and detail as given
 * (never a password, token, code or hash: AuditEntry says so). Features that tell the outside world
 * about administrative changes (src/webhook) listen to this rather than to every place that acts.
 */
export class AuditRecordedEvent {
  static readonly NAME = 'audit.recorded';
  constructor(
    readonly entry: AuditEntry,
    readonly time: Date,
  ) {}
}
