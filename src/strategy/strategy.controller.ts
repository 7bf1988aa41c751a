import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';

import { ApiDoc } from '../common/api-docs';
import type { Actor } from '../common/auth-context';
import { CurrentActor, RequirePermissions } from '../common/auth-context';
import { NoInputDto } from '../common/validation.pipe';
import { SaveLoginStrategyDto, SaveUserStrategyDto } from './dto/save-strategy.dto';
import { LoginStrategyDto, PasswordRulesDto, UserStrategyDto } from './dto/strategy-info.dto';
import { StrategyService } from './strategy.service';

@ApiTags('strategy')
@ApiSecurity('Admin-Token')
@Controller('sys/strategy')
export class StrategyController {
  constructor(private readonly strategy: StrategyService) {}

  @Post('login/info')
  @HttpCode(200)
  @RequirePermissions('sys:strategy:login:info')
  @ApiDoc('Read the login strategy', { data: LoginStrategyDto })
  loginInfo(@Body() _body: NoInputDto) {
    return this.strategy.loginStrategy();
  }

  @Post('login/save')
  @HttpCode(200)
  @RequirePermissions('sys:strategy:login:save')
  @ApiDoc('Save login strategy fields (partial; a bad field changes nothing)', { data: null })
  async loginSave(@Body() dto: SaveLoginStrategyDto, @CurrentActor() actor: Actor) {
    await this.strategy.saveLogin(dto, actor);
  }

  @Post('user/info')
  @HttpCode(200)
  @RequirePermissions('sys:strategy:user:info')
  @ApiDoc('Read the account strategy', { data: UserStrategyDto })
  userInfo(@Body() _body: NoInputDto) {
    return this.strategy.userStrategy();
  }

  @Post('user/save')
  @HttpCode(200)
  @RequirePermissions('sys:strategy:user:save')
  @ApiDoc('Save account strategy fields (partial; a bad field changes nothing)', { data: null })
  async userSave(@Body() dto: SaveUserStrategyDto, @CurrentActor() actor: Actor) {
    await this.strategy.saveUser(dto, actor);
  }

  /** The complexity rules, for any logged-in user (temporary too) to show while typing. */
  @Post('user/rules')
  @HttpCode(200)
  @ApiDoc('The password complexity rules, to show while typing', { data: PasswordRulesDto })
  rules(@Body() _body: NoInputDto) {
    return this.strategy.passwordRules();
  }
}
