import { QueryFailedError } from 'typeorm';

import { SERVICE_UNAVAILABLE } from '../../test/support/envelopes';
import { loadConfig } from '../config/app-config';
import { sessionLimitsSql } from '../database/data-source-options';
import { toEnvelope } from './http-errors';

/** A driver error as mysql2 raises it: MariaDB's 1969 comes without a code name. */
const driverError = (errno: number, code: string | undefined, sqlState: string) =>
  Object.assign(new Error('statement interrupted'), { errno, code, sqlState });

/** A statement that hit its deadline is the database being unavailable, not a bug. */
describe('a database statement past its deadline', () => {
  it.each([
    ['a lock wait (ER_LOCK_WAIT_TIMEOUT 1205)', driverError(1205, 'ER_LOCK_WAIT_TIMEOUT', 'HY000')],
    ["MariaDB's max_statement_time (1969, no code name)", driverError(1969, undefined, '70100')],
    ["MySQL's max_execution_time (ER_QUERY_TIMEOUT 3024)", driverError(3024, 'ER_QUERY_TIMEOUT', 'HY000')],
    // InnoDB chose this statement as a deadlock victim (retried by the caller where that is safe, then given up).
    ['a deadlock (ER_LOCK_DEADLOCK 1213)', driverError(1213, 'ER_LOCK_DEADLOCK', '40001')],
  ])('%s answers SERVICE_UNAVAILABLE 503, also wrapped in a QueryFailedError', (_, err) => {
    for (const thrown of [err, new QueryFailedError('INSERT ...', [], err)]) {
      expect(toEnvelope(thrown, 'zh')).toEqual({
        status: 503,
        body: SERVICE_UNAVAILABLE,
      });
    }
  });

  it('another driver error stays INTERNAL 500', () => {
    expect(
      toEnvelope(new QueryFailedError('SELECT', [], driverError(1064, 'ER_PARSE_ERROR', '42000')), 'en').status,
    ).toBe(500);
  });
});

describe('DB_STATEMENT_TIMEOUT_MS', () => {
  it('defaults to 3 s and takes a value in ms', () => {
    expect(loadConfig({}).DB_STATEMENT_TIMEOUT_MS).toBe(3_000);
    expect(loadConfig({ DB_STATEMENT_TIMEOUT_MS: '1500' }).DB_STATEMENT_TIMEOUT_MS).toBe(1_500);
  });

  it.each(['abc', '0', '50', '1.5'])('refuses %s, naming the variable', (value) => {
    expect(() => loadConfig({ DB_STATEMENT_TIMEOUT_MS: value })).toThrow(/DB_STATEMENT_TIMEOUT_MS/);
  });

  it("becomes whole-second lock waits on both servers and each server's own run-time limit", () => {
    expect(sessionLimitsSql(1_500)).toBe(
      'SET SESSION lock_wait_timeout = 2, innodb_lock_wait_timeout = 2' +
        ' /*M!100101 , max_statement_time = 1.500 */ /*!50708 , max_execution_time = 1500 */',
    );
  });
});
