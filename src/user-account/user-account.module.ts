import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { StrategyModule } from '../strategy/strategy.module';
import { AdminBootstrapService } from './admin-bootstrap.service';
import { MeController } from './me.controller';
import { BcryptPasswordHasher, PasswordHasher } from './password-hasher';
import { RoleController } from './role.controller';
import { RoleEntity, UserRoleEntity } from './role.entity';
import { RoleService } from './role.service';
import { UserAccountService } from './user-account.service';
import { UserController } from './user.controller';
import { UserIdentifierEntity } from './user-identifier.entity';
import { UserEntity } from './user.entity';

@Module({
  imports: [TypeOrmModule.forFeature([UserEntity, RoleEntity, UserRoleEntity, UserIdentifierEntity]), StrategyModule],
  controllers: [UserController, RoleController, MeController],
  providers: [
    UserAccountService,
    RoleService,
    AdminBootstrapService,
    { provide: PasswordHasher, useClass: BcryptPasswordHasher },
  ],
  exports: [UserAccountService, RoleService, PasswordHasher],
})
export class UserAccountModule {}
