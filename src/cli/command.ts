import { existsSync } from 'node:fs';

import { ConsoleLogger, INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { SchedulerRegistry } from '@nestjs/schedule';

import { AppModule } from '../app.module';
import { StartFailure } from '../common/start-failure';
import { AppConfig, loadConfigOrExplain } from '../config/app-config';

/**
 * Runs `work` in the service's own modules, with the service's environment (DATABASE_URL,
 * REDIS_URL, ...), for a one-off command on the server (admin:recover, audit:verify). The context
 * has no HTTP server; the scheduled jobs are removed as soon as it starts, and closing it ends the
 * database and Redis connections, so the process exits. 1, with one line said, when the
 * configuration is refused or the SQLite file is missing.
 */
export async function inService(work: (app: INestApplicationContext, config: AppConfig) => Promise<number>) {
  const config = loadConfigOrExplain();
  if (!config) return 1;
  // Opening a SQLite path that does not exist would create an empty database (migrated, keyed):
  // a mistyped DATABASE_URL must not look like an account not found or an empty log that verifies.
  const sqlitePath = config.DATABASE_URL.startsWith('sqlite:') ? config.DATABASE_URL.slice('sqlite:'.length) : null;
  if (sqlitePath && sqlitePath !== ':memory:' && !existsSync(sqlitePath)) {
    console.error(`No database at ${sqlitePath}. Check DATABASE_URL.`);
    return 1;
  }
  // Warnings only (a first start's generated admin password is one); errors are reported once by runCommand.
  const logger = new ConsoleLogger({ logLevels: ['fatal', 'warn'] });
  const app = await NestFactory.createApplicationContext(AppModule.forRoot(config, { command: true }), {
    logger,
    abortOnError: false,
  });
  try {
    stopScheduledJobs(app.get(SchedulerRegistry));
    return await work(app, config);
  } finally {
    await app.close();
  }
}

/** The daily jobs, the outbox and sealer polls and the message heartbeat belong to the service, not to a command. */
function stopScheduledJobs(registry: SchedulerRegistry): void {
  for (const name of registry.getIntervals()) registry.deleteInterval(name);
  for (const name of registry.getTimeouts()) registry.deleteTimeout(name);
  for (const name of registry.getCronJobs().keys()) registry.deleteCronJob(name);
}

export interface CommandWords {
  /** How a failure's line begins: 'Recovery' → "Recovery failed (…)". */
  noun: string;
  /** How a refused configuration's line begins: 'recover' → "Cannot recover: …". */
  verb: string;
  /**
   * How long the command may take: the service keeps reconnecting to an unreachable Redis (it must
   * survive an outage), and a command an operator waits for must not. The database gives up by
   * itself after about 30 s of retries.
   */
  deadlineMs: number;
}

/** Runs `main` as the process: its answer is the exit code; an error or the deadline is one line and exit code 1. */
export function runCommand(main: (args: string[]) => Promise<number>, words: CommandWords): void {
  const check = 'Check DATABASE_URL and REDIS_URL, and that the database';
  const deadline = setTimeout(() => {
    console.error(
      `${words.noun} did not finish within ${words.deadlineMs / 1000} s. ${check} and Redis are reachable.`,
    );
    process.exit(1);
  }, words.deadlineMs);
  main(process.argv.slice(2))
    .then(
      (code) => {
        process.exitCode = code;
      },
      (err) => {
        console.error(failureLine(err, words, check));
        // A start that failed half-way may leave a database pool or Redis client open behind it.
        process.exit(1);
      },
    )
    .finally(() => clearTimeout(deadline));
}

/** One line: the error's class and driver code, never a stack trace or SQL. */
function failureLine(err: unknown, words: CommandWords, check: string): string {
  // A start refused for its configuration (AUDIT_HMAC_KEY of another service) says which.
  if (err instanceof StartFailure && !err.origin) return `Cannot ${words.verb}: ${err.message}`;
  // A start that gave up (StartFailure) names the driver's error it gave up on.
  const e = (err instanceof StartFailure && err.origin ? err.origin : err) as { name?: string; code?: string } | null;
  const what = [e?.name ?? typeof err, e?.code].filter(Boolean).join(' ');
  return `${words.noun} failed (${what}). ${check} is reachable.`;
}
