import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';

import { AuditModule } from '../audit/audit.module';
import { AllExceptionsFilter } from '../common/all-exceptions.filter';
import { CryptoModule } from '../crypto/crypto.module';
import { LoginLogModule } from '../login-log/login-log.module';
import { PiiModule } from '../pii/pii.module';
import { SessionModule } from '../session/session.module';
import { StrategyModule } from '../strategy/strategy.module';
import { AccountStateService } from './account-state.service';
import { AdminModeRules } from './admin-mode';
import { CommonPasswords } from './common-passwords/common-passwords';
import { CompareSlots } from './compare-slots';
import { LockoutService } from './lockout.service';
import { MeController } from './me.controller';
import { MeInfoFastLane } from './me-info-fast-lane';
import { MFA_STATUS } from './mfa-status';
import { USER_PASSKEYS } from './passkey-status';
import { PasswordChangeService } from './password-change.service';
import { BcryptPasswordHasher, PasswordHasher } from './password-hasher';
import { PasswordHistoryEntity } from './password-history.entity';
import { PasswordProof } from './password-proof.service';
import { PasswordScreen } from './password-screen';
import { PermissionController } from './permission.controller';
import { PiiReencryptJob } from './pii-reencrypt.job';
import { REAUTH_CODE_PROOF, ReauthService } from './reauth.service';
import { RoleController } from './role.controller';
import { RoleEntity, UserRoleEntity } from './role.entity';
import { RoleRepository } from './role.repository';
import { RoleService } from './role.service';
import { SelfProtection } from './self-protection';
import { TargetAccess } from './target-access';
import { UserController } from './user.controller';
import { UserEntity } from './user.entity';
import { UserRepository } from './user.repository';
import { UserAdminService } from './user-admin.service';
import { UserDirectory } from './user-directory';
import { UserIdentifierEntity } from './user-identifier.entity';
import { UserLookup } from './user-lookup.service';
import { UserSheetService } from './user-sheet.service';

@Module({
  imports: [
    TypeOrmModule.forFeature([UserEntity, RoleEntity, UserRoleEntity, UserIdentifierEntity, PasswordHistoryEntity]),
    StrategyModule,
    LoginLogModule,
    SessionModule,
    CryptoModule,
    PiiModule,
    AuditModule,
  ],
  controllers: [UserController, RoleController, PermissionController, MeController],
  providers: [
    // The console's polling route, answered before Nest's router; it answers refusals as the filter does.
    MeInfoFastLane,
    AllExceptionsFilter,
    UserRepository,
    PiiReencryptJob,
    RoleRepository,
    UserLookup,
    UserAdminService,
    UserSheetService,
    AccountStateService,
    LockoutService,
    CompareSlots,
    PasswordProof,
    PasswordChangeService,
    ReauthService,
    PasswordScreen,
    CommonPasswords,
    RoleService,
    AdminModeRules,
    SelfProtection,
    TargetAccess,
    UserDirectory,
    { provide: PasswordHasher, useClass: BcryptPasswordHasher },
    // Where the second-factor module plugs in; empty without it.
    MFA_STATUS.provide(),
    USER_PASSKEYS.provide(),
    REAUTH_CODE_PROOF.provide(),
  ],
  exports: [
    // Whoever reads users shows or sends their mobile and e-mail through it.
    PiiModule,
    UserLookup,
    UserAdminService,
    AccountStateService,
    LockoutService,
    PasswordProof,
    ReauthService,
    RoleService,
    AdminModeRules,
    PasswordHasher,
    UserRepository,
    UserDirectory,
    SelfProtection,
    TargetAccess,
    PasswordScreen,
  ],
})
export class UserAccountModule {}
