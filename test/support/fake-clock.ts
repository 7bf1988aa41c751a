import { Clock } from '../../src/common/clock';

/** A clock that only moves when told to; shared by unit and e2e tests (test code only: production runs on SystemClock). */
export class FakeClock extends Clock {
  private current: number;
  constructor(start: Date | number = Date.now()) {
    super();
    this.current = typeof start === 'number' ? start : start.getTime();
  }
  now(): Date {
    return new Date(this.current);
  }
  advance(ms: number): void {
    this.current += ms;
  }
  advanceMinutes(minutes: number): void {
    this.advance(minutes * 60_000);
  }
  advanceDays(days: number): void {
    this.advance(days * 86_400_000);
  }
  set(at: Date | number): void {
    this.current = typeof at === 'number' ? at : at.getTime();
  }
}
