import { Injectable } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

import { LoginAnsweredEvent, LoginAttackEvent, SessionIssuedEvent } from '../auth/login/login.events';
import { LoginStatus, LoginTypes } from '../login-log/login-log.entity';
import { LoginAttemptLoggedEvent } from '../login-log/login-log.events';
import { NOTIFICATION_OUTCOMES, NotificationOutcomeEvent } from '../notification/notification.events';
import { NOTIFY_CHANNELS } from '../strategy/strategy.types';
import { AccountLockedEvent, LOCK_REASONS } from '../user-account/account.events';
import { CompareShedEvent } from '../user-account/password-hasher';

/** Seconds; a password login spends most of its time in one BCrypt compare, whose length follows BCRYPT_COST. */
const LOGIN_BUCKETS = [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * prom-client's gauges of active handles, requests and resources end in `_total`, which Prometheus
 * keeps for counters (`promtool check metrics` refuses them); their twins without the suffix stay.
 */
const GAUGES_NAMED_AS_COUNTERS = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];

type HttpChild = { observe(seconds: number): void };

/**
 * Metrics of this instance (each instance counts its own; Prometheus sums them). The
 * figures come from the events the features already emit — a logged attempt, a lock, a stored
 * token, an outbox outcome — so no feature calls into metrics. No label carries a user, an account
 * or an IP: only statuses, types, reasons, channels, route patterns and HTTP statuses, each from a
 * small fixed set. One registry per app (not prom-client's global one), so that several apps in one
 * process (the tests) do not share figures.
 */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();

  private readonly loginAttempts = new Counter({
    name: 'lps_login_attempts_total',
    help: 'Login attempts as logged, by status and login type',
    labelNames: ['status', 'login_type'] as const,
    registers: [this.registry],
  });

  private readonly loginDuration = new Histogram({
    name: 'lps_login_duration_seconds',
    help: 'Time to answer a password login (POST /sys/login), any outcome',
    buckets: LOGIN_BUCKETS,
    registers: [this.registry],
  });

  private readonly accountLocks = new Counter({
    name: 'lps_account_locks_total',
    help: 'Accounts locked, by reason (failures: too many wrong attempts; admin: an administrator)',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  private readonly sessionsIssued = new Counter({
    name: 'lps_sessions_issued_total',
    help: 'Tokens issued, temporary (temp="true") or normal',
    labelNames: ['temp'] as const,
    registers: [this.registry],
  });

  private readonly notifications = new Counter({
    name: 'lps_notifications_total',
    help: 'Notification delivery attempts by channel and outcome (sent, failed, not_configured, retry)',
    labelNames: ['channel', 'outcome'] as const,
    registers: [this.registry],
  });

  private readonly loginsShed = new Counter({
    name: 'lps_login_shed_total',
    help: 'Password compares shed (SERVICE_UNAVAILABLE with Retry-After): they would have waited over LOGIN_QUEUE_MS',
    registers: [this.registry],
  });

  private readonly underAttack = new Gauge({
    name: 'lps_login_under_attack',
    help: 'Adaptive captcha (captchaUnderAttack): 1 from the start of an attack to its end on the instance that announced them; max() over instances',
    registers: [this.registry],
  });

  private readonly attackEdges = new Counter({
    name: 'lps_login_attack_changes_total',
    help: 'Adaptive captcha turned on (edge="start") or off (edge="end"), counted by the instance that saw the edge',
    labelNames: ['edge'] as const,
    registers: [this.registry],
  });

  private readonly httpDuration = new Histogram({
    name: 'lps_http_request_duration_seconds',
    help: 'HTTP answers by route pattern (never the raw URL), method and status',
    labelNames: ['route', 'method', 'status'] as const,
    buckets: HTTP_BUCKETS,
    registers: [this.registry],
  });

  /** route → method → status → child: after the first answer of a kind, observing allocates nothing. */
  private readonly httpChildren = new Map<string, Map<string, Map<number, HttpChild>>>();

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    for (const name of GAUGES_NAMED_AS_COUNTERS) this.registry.removeSingleMetric(name);
    // Every series the service knows of exists from the start at 0: Prometheus computes rates from
    // the second sample of a series, so a series born by its first event would never count that event.
    for (const status of Object.values(LoginStatus)) {
      for (const loginType of Object.values(LoginTypes)) this.loginAttempts.inc({ status, login_type: loginType }, 0);
    }
    for (const reason of LOCK_REASONS) this.accountLocks.inc({ reason }, 0);
    for (const temp of ['true', 'false']) this.sessionsIssued.inc({ temp }, 0);
    for (const channel of NOTIFY_CHANNELS) {
      for (const outcome of NOTIFICATION_OUTCOMES) this.notifications.inc({ channel, outcome }, 0);
    }
    for (const edge of ['start', 'end']) this.attackEdges.inc({ edge }, 0);
    this.underAttack.set(0);
  }

  @OnEvent(CompareShedEvent.NAME)
  onShed(): void {
    this.loginsShed.inc();
  }

  @OnEvent(LoginAttackEvent.NAME)
  onLoginAttack(event: LoginAttackEvent): void {
    this.attackEdges.inc({ edge: event.started ? 'start' : 'end' });
    this.underAttack.set(event.started ? 1 : 0);
  }

  @OnEvent(LoginAttemptLoggedEvent.NAME)
  onAttempt(event: LoginAttemptLoggedEvent): void {
    this.loginAttempts.inc({ status: event.status, login_type: event.loginType });
  }

  @OnEvent(LoginAnsweredEvent.NAME)
  onLoginAnswered(event: LoginAnsweredEvent): void {
    this.loginDuration.observe(event.seconds);
  }

  @OnEvent(AccountLockedEvent.NAME)
  onLocked(event: AccountLockedEvent): void {
    this.accountLocks.inc({ reason: event.reason });
  }

  @OnEvent(SessionIssuedEvent.NAME)
  onSessionIssued(event: SessionIssuedEvent): void {
    this.sessionsIssued.inc({ temp: event.temp ? 'true' : 'false' });
  }

  @OnEvent(NotificationOutcomeEvent.NAME)
  onNotification(event: NotificationOutcomeEvent): void {
    this.notifications.inc({ channel: event.channel, outcome: event.outcome });
  }

  /** One HTTP answer; `route` is the matched pattern (or a fixed placeholder), never the URL. */
  observeHttp(route: string, method: string, status: number, seconds: number): void {
    let byMethod = this.httpChildren.get(route);
    if (!byMethod) this.httpChildren.set(route, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (!byStatus) byMethod.set(method, (byStatus = new Map()));
    let child = byStatus.get(status);
    if (!child) byStatus.set(status, (child = this.httpDuration.labels(route, method, String(status))));
    child.observe(seconds);
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
