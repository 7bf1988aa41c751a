import { AppException } from '../../src/common/app.exception';
import { ErrorCode } from '../../src/common/error-code';

/** The ErrorCode a call fails with, or 'ok'; anything that is not an AppException is rethrown. */
export async function codeOf(promise: Promise<unknown>): Promise<ErrorCode | 'ok'> {
  try {
    await promise;
    return 'ok';
  } catch (err) {
    if (err instanceof AppException) return err.code;
    throw err;
  }
}
