import { Module } from '@nestjs/common';

import { SessionModule } from '../session/session.module';
import { TokenIntrospectionController } from './token-introspection.controller';

/** Tokens as other systems ask about them: introspection for a gateway. */
@Module({
  imports: [SessionModule],
  controllers: [TokenIntrospectionController],
})
export class TokenModule {}
