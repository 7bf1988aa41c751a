import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';

import { AppConfig } from '../config/app-config';
import { ALL_PERMISSIONS } from './grants';
import { ADMIN_ROLE, RoleService } from './role.service';
import { UserAdminService } from './user-admin.service';
import { UserLookup } from './user-lookup.service';

/** On first start, with no user at all, an account named ADMIN_USERNAME (`admin`) holding the role admin. */
@Injectable()
export class AdminBootstrapService implements OnApplicationBootstrap {
  private readonly logger = new Logger('Bootstrap');

  constructor(
    private readonly accounts: UserAdminService,
    private readonly lookup: UserLookup,
    private readonly roles: RoleService,
    private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap() {
    await this.roles.onApplicationBootstrap();
    if ((await this.lookup.count()) > 0) return;
    try {
      const created = await this.accounts.create(
        {
          username: this.config.ADMIN_USERNAME,
          name: '管理员',
          roles: [ADMIN_ROLE],
          password: this.config.ADMIN_INITIAL_PASSWORD,
        },
        [ALL_PERMISSIONS],
      ); // the service itself, at first start: it may give the role admin
      if (created.password) {
        // The generated first password is printed once; it is an initial password
        // that must be changed at first login when forceUpdatePassword is on.
        // warn, so that it shows even with LOG_LEVEL=warn.
        this.logger.warn(`Created account "${this.config.ADMIN_USERNAME}" with initial password: ${created.password}`);
      } else {
        this.logger.log(`Created account "${this.config.ADMIN_USERNAME}" with the password of ADMIN_INITIAL_PASSWORD`);
      }
    } catch (err) {
      // Another instance created it first.
      if ((await this.lookup.count()) === 0) throw err;
    }
  }
}
