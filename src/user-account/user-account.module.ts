import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { StrategyModule } from '../strategy/strategy.module';
import { AdminBootstrapService } from './admin-bootstrap.service';
import { MeController } from './me.controller';
import { BcryptPasswordHasher, PasswordHasher } from './password-hasher';
import { RoleController } from './role.controller';
import { RoleEntity, UserRoleEntity } from './role.entity';
import { RoleService } from './role.service';
import { SelfProtection } from './self-protection';
import { UserAccountService } from './user-account.service';
import { UserController } from './user.controller';
import { UserEntity } from './user.entity';

@Module({
  imports: [TypeOrmModule.forFeature([UserEntity, RoleEntity, UserRoleEntity]), StrategyModule],
  controllers: [UserController, RoleController, MeController],
  providers: [
    UserAccountService,
    RoleService,
    SelfProtection,
    AdminBootstrapService,
    { provide: PasswordHasher, useClass: BcryptPasswordHasher },
  ],
  exports: [UserAccountService, RoleService, PasswordHasher],
})
export class UserAccountModule {}
