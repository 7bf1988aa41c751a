import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';
import { RequirePermissions } from '../common/auth-context';
import { ListLoginLogDto, LoginLogRowDto } from './dto/list-login-log.dto';
import { LoginLogService } from './login-log.service';
import { ApiDoc } from '../common/api-docs';

@ApiTags('login log')
@ApiSecurity('Admin-Token')
@Controller('sys/loginLog')
export class LoginLogController {
  constructor(private readonly logs: LoginLogService) {}

  @Post('list') @HttpCode(200) @RequirePermissions('sys:loginLog:list')
  @ApiDoc('Search the login log (account and IP by prefix, newest first)', { data: LoginLogRowDto, shape: 'page' })
  list(@Body() dto: ListLoginLogDto) {
    return this.logs.list(dto);
  }
}
