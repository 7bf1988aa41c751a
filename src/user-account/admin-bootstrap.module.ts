import { Module } from '@nestjs/common';

import { AdminBootstrapService } from './admin-bootstrap.service';
import { UserAccountModule } from './user-account.module';

/**
 * The first start's `admin` account. A module of its own so that the server-side
 * recovery command, which must never create an account in a database it was pointed at by mistake,
 * can leave it out.
 */
@Module({
  imports: [UserAccountModule],
  providers: [AdminBootstrapService],
})
export class AdminBootstrapModule {}
