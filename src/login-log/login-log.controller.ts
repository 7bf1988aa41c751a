import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';
import { RequirePermissions } from '../common/auth-context';
import { ListLoginLogDto, LoginLogRowDto } from './dto/list-login-log.dto';
import { ApiEnvelope } from '../common/api-envelope';
import { LoginLogService } from './login-log.service';

@ApiTags('login log')
@ApiSecurity('Admin-Token')
@Controller('sys/loginLog')
export class LoginLogController {
  constructor(private readonly logs: LoginLogService) {}

  @Post('list') @HttpCode(200) @RequirePermissions('sys:loginLog:list')
  @ApiEnvelope(LoginLogRowDto, 'page')
  list(@Body() dto: ListLoginLogDto) {
    return this.logs.list(dto);
  }
}
