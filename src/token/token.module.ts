import { Module } from '@nestjs/common';

import { SessionModule } from '../session/session.module';
import { IntrospectionFastLane } from './introspection-fast-lane';
import { TokenIntrospectionController } from './token-introspection.controller';

/** Tokens as other systems ask about them: introspection for a gateway. */
@Module({
  imports: [SessionModule],
  controllers: [TokenIntrospectionController],
  providers: [IntrospectionFastLane],
})
export class TokenModule {}
