/** What became of one delivery attempt of the outbox. */
export const NOTIFICATION_OUTCOMES = ['sent', 'failed', 'not_configured', 'retry'] as const;
export type NotificationOutcome = (typeof NOTIFICATION_OUTCOMES)[number];

/** Lps_notifications_total{channel,outcome}: one delivery attempt's outcome, without its recipient. */
export class NotificationOutcomeEvent {
  static readonly NAME = 'notification.outcome';
  constructor(
    readonly channel: string,
    readonly outcome: NotificationOutcome,
  ) {}
}
