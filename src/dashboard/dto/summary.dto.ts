import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

import { USER_STATES, UserState } from '../../user-account/dto/user.dto';

class CountsDto {
  @ApiProperty() success: number;
  @ApiProperty() failure: number;
}

class HourCountsDto extends CountsDto {
  @ApiProperty({ description: '0–23 in DISPLAY_TIMEZONE' }) hour: number;
}

class DayCountsDto extends CountsDto {
  @ApiProperty({ example: '2026-11-27', description: 'yyyy-MM-dd in DISPLAY_TIMEZONE' }) date: string;
}

class ReasonCountDto {
  @ApiProperty({ example: 'BAD_CREDENTIALS', description: 'the error code of the refusal (its status for older rows)' })
  code: string;
  @ApiProperty() count: number;
}

class IpCountDto {
  @ApiProperty() ip: string;
  @ApiProperty() count: number;
}

export class UsersSummaryDto {
  @ApiProperty() total: number;
  @ApiProperty({
    type: 'object',
    properties: Object.fromEntries(USER_STATES.map((s) => [s, { type: 'number' }])),
    description: "users in each state, as the users list's state filter finds them (a user may be in several)",
  })
  byState: Record<UserState, number>;
}

export class LoginsSummaryDto {
  @ApiProperty({ type: CountsDto, description: 'today in DISPLAY_TIMEZONE' }) today: CountsDto;
  @ApiProperty({ type: [HourCountsDto], description: "today's 24 hours" }) byHour: HourCountsDto[];
  @ApiProperty({ type: [DayCountsDto], description: 'the last 30 days, today last' }) byDay: DayCountsDto[];
  @ApiProperty({ type: [ReasonCountDto], description: "today's most frequent refusals, at most 5" })
  topFailureReasons: ReasonCountDto[];
  @ApiProperty({ type: [IpCountDto], description: "today's addresses with the most refusals, at most 5" })
  topFailureIps: IpCountDto[];
}

class SessionsSummaryDto {
  @ApiProperty() online: number;
}

class PasswordsSummaryDto {
  @ApiProperty({ description: 'passwords not expired yet that expire within 7 days' }) expiringIn7Days: number;
}

class BaselineGapDto {
  @ApiProperty({ example: 'mfaMode' }) field: string;
  @ApiProperty({ description: 'the 等保三级 baseline value' }) expected: unknown;
  @ApiProperty({ description: 'the saved value (null when the strategy has none)' }) actual: unknown;
}

/** Each block only for a caller holding the code that reads its source. */
export class DashboardSummaryDto {
  @ApiPropertyOptional({ type: UsersSummaryDto, description: 'with sys:user:list' }) users?: UsersSummaryDto;
  @ApiPropertyOptional({ type: LoginsSummaryDto, description: 'with sys:loginLog:list' }) logins?: LoginsSummaryDto;
  @ApiPropertyOptional({ type: SessionsSummaryDto, description: 'with sys:online:list' })
  sessions?: SessionsSummaryDto;
  @ApiPropertyOptional({ type: PasswordsSummaryDto, description: 'with sys:user:list' })
  passwords?: PasswordsSummaryDto;
  @ApiPropertyOptional({
    type: [BaselineGapDto],
    description:
      'the 等保三级 baseline fields whose saved value differs: login fields with sys:strategy:login:info, account fields with sys:strategy:user:info',
  })
  baseline?: BaselineGapDto[];
}
