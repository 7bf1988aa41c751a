import 'reflect-metadata';

import { SYSTEM_ACTOR } from '../audit/audit-log.service';
import { LogVerifier, VerifyResult } from '../log-seal/log-verifier';
import { inService, runCommand } from './command';

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
  return inService(async (app) => {
    const result = await app.get(LogVerifier).verify({ ...SYSTEM_ACTOR, ip: '' });
    console.log(JSON.stringify(result));
    console.log(summary(result));
    return result.ok ? 0 : 1;
  });
}

function summary(r: VerifyResult): string {
  const unsealed = r.unsealed ? `; ${r.unsealed} row(s) written before sealing began carry no seal` : '';
  if (r.ok) return `Both logs verify: ${r.checked} sealed row(s) checked${unsealed}.`;
  const bad = r.firstBad!;
  return `Bad row: ${bad.table} id ${bad.id} is ${bad.reason} (${r.checked} row(s) checked before it${unsealed}).`;
}

// Sealing every row first can take a while on a large log.
if (require.main === module) runCommand(main, { noun: 'Verification', verb: 'verify', deadlineMs: 300_000 });
