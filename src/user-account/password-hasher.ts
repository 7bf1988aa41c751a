import { Injectable, OnModuleInit } from '@nestjs/common';
import * as bcrypt from 'bcrypt';

import { AppConfig } from '../config/app-config';

/** Port around BCrypt: salted hashes, compared by matching. */
export abstract class PasswordHasher {
  abstract hash(plain: string): Promise<string>;
  abstract matches(plain: string, hash: string): Promise<boolean>;
  /** Spends the time of one compare, so that unknown or locked accounts answer as slowly as known ones. */
  abstract burn(plain: string): Promise<void>;
}

@Injectable()
export class BcryptPasswordHasher extends PasswordHasher implements OnModuleInit {
  private dummyHash: string;

  constructor(private readonly config: AppConfig) {
    super();
  }

  async onModuleInit() {
    this.dummyHash = await bcrypt.hash('dummy-password-for-timing', this.config.BCRYPT_COST);
  }

  hash(plain: string) {
    return bcrypt.hash(plain, this.config.BCRYPT_COST);
  }

  matches(plain: string, hash: string) {
    return bcrypt.compare(plain, hash);
  }

  async burn(plain: string) {
    await bcrypt.compare(plain, this.dummyHash);
  }
}
