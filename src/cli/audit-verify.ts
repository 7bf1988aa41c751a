import 'reflect-metadata';

import { existsSync } from 'node:fs';

import { ConsoleLogger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { SchedulerRegistry } from '@nestjs/schedule';

import { AppModule } from '../app.module';
import { SYSTEM_ACTOR } from '../audit/audit-log.service';
import { StartFailure } from '../common/start-failure';
import { loadConfigOrExplain } from '../config/app-config';
import { LogVerifier, VerifyResult } from '../log-seal/log-verifier';

/**
 * `npm run audit:verify`, run on the server with the service's own environment (DATABASE_URL,
 * AUDIT_HMAC_KEY, ...): seals every row written until now, then checks both logs, as
 * POST /sys/auditLog/verify does (docs/security.md#sealed-logs); audited as `auditLog.verify` by
 * `system`. Prints the answer as one JSON line. Exit codes: 0 every row good, 1 a bad row or a
 * failure, 2 usage.
 */
export const USAGE = 'Usage: npm run audit:verify';

export async function main(args: string[]): Promise<number> {
  if (args.length) {
    console.error(USAGE);
    return 2;
  }
  const config = loadConfigOrExplain();
  if (!config) return 1;
  // As admin:recover: a mistyped SQLite path must not look like an empty log that verifies.
  const sqlitePath = config.DATABASE_URL.startsWith('sqlite:') ? config.DATABASE_URL.slice('sqlite:'.length) : null;
  if (sqlitePath && sqlitePath !== ':memory:' && !existsSync(sqlitePath)) {
    console.error(`No database at ${sqlitePath}. Check DATABASE_URL.`);
    return 1;
  }
  const logger = new ConsoleLogger({ logLevels: ['fatal', 'warn'] });
  const app = await NestFactory.createApplicationContext(AppModule.forRoot(config, { command: true }), {
    logger,
    abortOnError: false,
  });
  try {
    stopScheduledJobs(app.get(SchedulerRegistry));
    const result = await app.get(LogVerifier).verify({ ...SYSTEM_ACTOR, ip: '' });
    console.log(JSON.stringify(result));
    console.log(summary(result));
    return result.ok ? 0 : 1;
  } finally {
    await app.close();
  }
}

function summary(r: VerifyResult): string {
  const unsealed = r.unsealed ? `; ${r.unsealed} row(s) written before sealing began carry no seal` : '';
  if (r.ok) return `Both logs verify: ${r.checked} sealed row(s) checked${unsealed}.`;
  const bad = r.firstBad!;
  return `Bad row: ${bad.table} id ${bad.id} is ${bad.reason} (${r.checked} row(s) checked before it${unsealed}).`;
}

/** The sealer's poll and the service's other timers belong to the service, not to a one-off command. */
function stopScheduledJobs(registry: SchedulerRegistry): void {
  for (const name of registry.getIntervals()) registry.deleteInterval(name);
  for (const name of registry.getTimeouts()) registry.deleteTimeout(name);
  for (const name of registry.getCronJobs().keys()) registry.deleteCronJob(name);
}

/** One line: the error's class and driver code, never a stack trace or SQL. */
function describe(err: unknown): string {
  // A start refused for its configuration (AUDIT_HMAC_KEY of another service) says which.
  if (err instanceof StartFailure && !err.origin) return `Cannot verify: ${err.message}`;
  const e = (err instanceof StartFailure && err.origin ? err.origin : err) as {
    name?: string;
    code?: string;
  } | null;
  const what = [e?.name ?? typeof err, e?.code].filter(Boolean).join(' ');
  return `Verification failed (${what}). Check DATABASE_URL and REDIS_URL, and that the database is reachable.`;
}

/** As admin:recover: the service keeps reconnecting to an unreachable Redis; a command must not. */
const DEADLINE_MS = 300_000;

if (require.main === module) {
  const deadline = setTimeout(() => {
    console.error(
      `Verification did not finish within ${DEADLINE_MS / 1000} s. Check DATABASE_URL and REDIS_URL, and that the database and Redis are reachable.`,
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
        // A start that failed half-way may leave a database pool or Redis client open behind it.
        process.exit(1);
      },
    )
    .finally(() => clearTimeout(deadline));
}
