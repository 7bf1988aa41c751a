import { Injectable } from '@nestjs/common';

/** Port for "now": injected so tests of expiry and renewal move time instead of sleeping. */
export abstract class Clock {
  abstract now(): Date;
  nowMs(): number {
    return this.now().getTime();
  }
}

@Injectable()
export class SystemClock extends Clock {
  now(): Date {
    return new Date();
  }

  /** Without a Date object: the hot path reads the time in milliseconds several times per request. */
  override nowMs(): number {
    return Date.now();
  }
}
