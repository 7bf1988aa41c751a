import 'reflect-metadata';

import { AccessRuleService } from '../access-rule/access-rule.service';
import { MfaRecoveryService } from '../mfa/mfa-recovery.service';
import { AccountRecoveryService } from '../user-account/recovery/account-recovery.service';
import { inService, runCommand } from './command';

/**
 * `npm run admin:recover -- <username>`, run on the server with the service's own
 * environment (DATABASE_URL, REDIS_URL, ...), for when no administrator can log in any more:
 * the account recovered, and every login access rule that could refuse it disabled; with
 * `--reset-mfa`, its second factor (TOTP and recovery codes) removed too, for a sole administrator who
 * lost both. It works alike in both ADMIN_MODEs: it changes no role. It runs in the service's
 * modules without HTTP or scheduled jobs (./command.ts).
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
  return inService(async (app, config) => {
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
  });
}

if (require.main === module) runCommand(main, { noun: 'Recovery', verb: 'recover', deadlineMs: 45_000 });
