import 'reflect-metadata';

import { existsSync } from 'node:fs';

import { ConsoleLogger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { SchedulerRegistry } from '@nestjs/schedule';

import { AccessRuleService } from '../access-rule/access-rule.service';
import { AppModule } from '../app.module';
import { StartFailure } from '../common/start-failure';
import { loadConfigOrExplain } from '../config/app-config';
import { MfaRecoveryService } from '../mfa/mfa-recovery.service';
import { AccountRecoveryService } from '../user-account/recovery/account-recovery.service';

/**
 * `npm run admin:recover -- <username>`, run on the server with the service's own
 * environment (DATABASE_URL, REDIS_URL, ...), for when no administrator can log in any more:
 * the account recovered, and every login access rule that could refuse it disabled; with
 * `--reset-mfa`, its second factor (TOTP and recovery codes) removed too, for a sole administrator who
 * lost both. It works alike in both ADMIN_MODEs: it changes no role.
 * The application context has no HTTP server; the scheduled jobs are removed as soon as it
 * starts, and closing it ends the database and Redis connections, so the process exits.
 * Exit codes: 0 recovered, 1 unknown user or failure, 2 usage. Messages are one line, no stack.
 */
export const USAGE = 'Usage: npm run admin:recover -- <username> [--reset-mfa]';
const RESET_MFA = '--reset-mfa';

export async function main(args: string[]): Promise<number> {
  const names = args.filter((a) => a !== RESET_MFA);
  const resetMfa = names.length < args.length;
  if (names.length !== 1 || args.length > 2 || !names[0].trim() || names[0].startsWith('-')) {
    console.error(USAGE);
    return 2;
  }
  const username = names[0];
  const config = loadConfigOrExplain();
  if (!config) return 1;
  // Opening a SQLite path that does not exist would create an empty database (migrated, keyed):
  // a mistyped DATABASE_URL must not look like a recovery that found nobody.
  const sqlitePath = config.DATABASE_URL.startsWith('sqlite:') ? config.DATABASE_URL.slice('sqlite:'.length) : null;
  if (sqlitePath && sqlitePath !== ':memory:' && !existsSync(sqlitePath)) {
    console.error(`No database at ${sqlitePath}. Check DATABASE_URL.`);
    return 1;
  }
  // Warnings only (a first start's generated admin password is one); errors are reported once below.
  const logger = new ConsoleLogger({ logLevels: ['fatal', 'warn'] });
  const app = await NestFactory.createApplicationContext(AppModule.forRoot(config, { command: true }), {
    logger,
    abortOnError: false,
  });
  try {
    stopScheduledJobs(app.get(SchedulerRegistry));
    const recovered = await app.get(AccountRecoveryService).recover(username);
    if (!recovered) {
      console.error(`No user with the user name "${username}".`);
      return 1;
    }
    const mfaRemoved = resetMfa && (await app.get(MfaRecoveryService).reset(recovered));
    const changes = [
      recovered.wasLocked && 'unlocked',
      recovered.wasDisabled && 'enabled',
      'password reset',
      mfaRemoved && 'second factor removed',
    ].filter(Boolean);
    console.log(`Recovered account "${recovered.username}" (${recovered.id}): ${changes.join(', ')}.`);
    console.log(
      recovered.sessionsEnded
        ? 'Its sessions have ended.'
        : "REDIS_URL is not set: its sessions live in the running service's memory; restart the service to end them.",
    );
    // The rules that would refuse this user, wherever and whenever it logs in from (docs/security.md#login-access-rules).
    const lifted = await app.get(AccessRuleService).liftFor(recovered.id);
    if (lifted.length) {
      console.log(
        `Disabled ${lifted.length} login access rule(s) that could refuse this user: ${lifted
          .map((r) => `"${r.name}" (${r.action}, ${r.id})`)
          .join(', ')}.`,
      );
      console.log(
        config.usesRedis
          ? 'Every instance applies this at once.'
          : "REDIS_URL is not set: the running service applies this within a minute (its rules' cache).",
      );
    } else {
      console.log('No login access rule refuses this user.');
    }
    if (resetMfa && !mfaRemoved) console.log('The account had no second factor to remove.');
    console.log('The password is an initial password: the first-login rules of the account strategy apply.');
    console.log(`One-time password (shown only now): ${recovered.password}`);
    return 0;
  } finally {
    await app.close();
  }
}

/** The daily jobs, the outbox poll and the message heartbeat belong to the service, not to a one-off command. */
function stopScheduledJobs(registry: SchedulerRegistry): void {
  for (const name of registry.getIntervals()) registry.deleteInterval(name);
  for (const name of registry.getTimeouts()) registry.deleteTimeout(name);
  for (const name of registry.getCronJobs().keys()) registry.deleteCronJob(name);
}

/** One line: the error's class and driver code, never a stack trace or SQL. */
function describe(err: unknown): string {
  // A start that gave up (StartFailure) names the driver's error it gave up on.
  const e = (err instanceof StartFailure && err.origin ? err.origin : err) as {
    name?: string;
    code?: string;
    message?: string;
  } | null;
  const what = [e?.name ?? typeof err, e?.code].filter(Boolean).join(' ');
  return `Recovery failed (${what}). Check DATABASE_URL and REDIS_URL, and that the database is reachable.`;
}

/**
 * The service keeps reconnecting to an unreachable Redis (it must survive an outage); a command an
 * operator waits for must not. The database gives up by itself after about 30 s of retries.
 */
const DEADLINE_MS = 45_000;

if (require.main === module) {
  const deadline = setTimeout(() => {
    console.error(
      `Recovery did not finish within ${DEADLINE_MS / 1000} s. Check DATABASE_URL and REDIS_URL, and that the database and Redis are reachable.`,
    );
    process.exit(1);
  }, DEADLINE_MS);
  main(process.argv.slice(2))
    .then(
      (code) => {
        process.exitCode = code;
      },
      (err) => {
        console.error(describe(err));
        process.exitCode = 1;
      },
    )
    .finally(() => clearTimeout(deadline));
}
