import { bilingual } from '../../common/texts';

/** Spec 4.2 / 4.1 step 10: login from none of the latest 3 successful IPs. */
export class UnusualIpEvent {
  static readonly NAME = 'auth.unusual-ip';
  readonly hint = bilingual('notification.unusualIpHint');
  constructor(
    readonly userId: string,
    readonly account: string,
    readonly ip: string,
    readonly time: Date,
  ) {}
}
