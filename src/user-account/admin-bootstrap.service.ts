import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';

import { ADMIN_SETS } from '../common/permissions';
import { AppConfig } from '../config/app-config';
import { AdminModeRules } from './admin-mode';
import { ALL_PERMISSIONS } from './grants';
import { ADMIN_ROLE, RoleService } from './role.service';
import { UserAdminService } from './user-admin.service';
import { UserLookup } from './user-lookup.service';

/** An account the first start creates, and the role it holds. */
interface FirstAccount {
  username: string;
  name: string;
  role: string;
}

/**
 * On first start, with no user at all: an account named ADMIN_USERNAME (`admin`) holding the role
 * admin, or in three mode the system, security and audit administrators, each holding its built-in
 * role (docs/security.md#three-administrators). On a later start in three mode, the start log names
 * every role and user that breaks the set rule.
 */
@Injectable()
export class AdminBootstrapService implements OnApplicationBootstrap {
  private readonly logger = new Logger('Bootstrap');

  constructor(
    private readonly accounts: UserAdminService,
    private readonly lookup: UserLookup,
    private readonly roles: RoleService,
    private readonly mode: AdminModeRules,
    private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap() {
    await this.roles.onApplicationBootstrap();
    if ((await this.lookup.count()) > 0) return this.reportSetViolations();
    const first: FirstAccount[] = this.mode.three
      ? ADMIN_SETS.map((s) => ({ username: s.role, name: s.name.zh, role: s.role }))
      : [{ username: this.config.ADMIN_USERNAME, name: '管理员', role: ADMIN_ROLE }];
    try {
      for (const account of first) await this.createFirst(account);
    } catch (err) {
      // Another instance created them first.
      if ((await this.lookup.count()) === 0) throw err;
    }
  }

  private async createFirst({ username, name, role }: FirstAccount): Promise<void> {
    const created = await this.accounts.create(
      { username, name, roles: [role], password: this.config.ADMIN_INITIAL_PASSWORD },
      [ALL_PERMISSIONS],
    ); // the service itself, at first start: it may give the built-in roles
    if (created.password) {
      // The generated first password is printed once; it is an initial password
      // that must be changed at first login when forceUpdatePassword is on.
      // warn, so that it shows even with LOG_LEVEL=warn.
      // The password stays the line's last word (scripts and docs/operations.md read it there).
      this.logger.warn(
        `Created account "${username}"; log in and change this initial password at once (it is printed only ` +
          `this once, and whoever reads this log knows it): ${created.password}`,
      );
    } else {
      this.logger.log(
        `Created account "${username}" with the password of ADMIN_INITIAL_PASSWORD — log in and change it now, ` +
          'then remove ADMIN_INITIAL_PASSWORD from the environment',
      );
    }
  }

  /**
   * An installation switched to three mode keeps its roles and users working as they are; the
   * start log names, one line each, those a security administrator must put right (no save keeps them).
   */
  private async reportSetViolations(): Promise<void> {
    if (!this.mode.three) return;
    for (const v of await this.roles.setViolations()) {
      this.logger.warn(
        v.kind === 'role'
          ? `ADMIN_MODE=three: role "${v.name}" has codes of no one administrator set (system, security, audit); it keeps working until it is saved within one`
          : `ADMIN_MODE=three: user "${v.name}" has roles (${v.roles.join(', ')}) whose codes lie in no one administrator set; it keeps them until its roles are changed`,
      );
    }
  }
}
