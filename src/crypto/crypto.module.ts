import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SysPropEntity } from '../strategy/sys-prop.entity';
import { RsaKeyService } from './rsa-key.service';

@Module({
  imports: [TypeOrmModule.forFeature([SysPropEntity])],
  providers: [RsaKeyService],
  exports: [RsaKeyService],
})
export class CryptoModule {}
