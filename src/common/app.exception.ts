import { ErrorCode } from './error-code';
import { fieldLabel, text, type TextKey, type TextParams } from './texts';

/** One refused input field, answered in `data.errors` so that a form can mark it. */
export interface FieldProblem {
  /** The sheet row of an import (/sys/user/import); absent elsewhere. */
  row?: number;
  field: string;
  zh: string;
  en: string;
}

/**
 * The one exception type services throw. The global filter turns it into the
 * contract's envelope; services never pick HTTP statuses or build envelopes.
 */
export class AppException extends Error {
  /** Sent as Retry-After (seconds) with the answer: when trying again makes sense. */
  retryAfterSeconds?: number;

  constructor(
    readonly code: ErrorCode,
    readonly params?: Record<string, string | number>,
    /** A ready message (validation details); when absent the code's text is used. */
    readonly detail?: { zh: string; en: string },
    /** The refused fields, answered as `data.errors`. */
    readonly fields?: FieldProblem[],
  ) {
    super(code);
  }
}

/** Whom a refused action was aimed at, for the audit row of the refusal. */
export interface RefusedTarget {
  id: string;
  name: string | null;
}

/**
 * FORBIDDEN with what was missing, for the `access.denied` audit row every FORBIDDEN answer to a
 * logged-in caller gets: the codes the caller lacks — the route's, or those of the user acted on —
 * and that user. The answer itself says no more than
 * FORBIDDEN always does.
 */
export class AccessDenied extends AppException {
  constructor(
    readonly missing: readonly string[] = [],
    readonly target?: RefusedTarget,
  ) {
    super(ErrorCode.FORBIDDEN);
  }
}

/**
 * VALIDATION_FAILED for one refused input field (`data.errors` names it, so that a form
 * can mark the field). `body` when the refusal is about the body as a whole.
 */
export const validationFailed = (key: TextKey, field = 'body', params: TextParams = { field }) => {
  const problem = fieldProblem(key, field, params);
  return new AppException(ErrorCode.VALIDATION_FAILED, undefined, { zh: problem.zh, en: problem.en }, [problem]);
};

/**
 * One refused field, its texts from the catalogue (texts.ts) in both languages; `{label}` is the
 * field's label in each (`scope`, the input's class, picks one that depends on the operation).
 */
export const fieldProblem = (
  key: TextKey,
  field: string,
  params: TextParams = { field },
  scope?: string,
): FieldProblem => ({
  field,
  zh: text(key, 'zh', { ...params, label: fieldLabel(field, 'zh', scope) }),
  en: text(key, 'en', { ...params, label: fieldLabel(field, 'en', scope) }),
});

/** VALIDATION_FAILED naming each refused field; the message joins theirs. */
export const fieldsFailed = (problems: FieldProblem[]) =>
  new AppException(
    ErrorCode.VALIDATION_FAILED,
    undefined,
    {
      zh: problems.map((p) => p.zh).join('; '),
      en: problems.map((p) => p.en).join('; '),
    },
    problems,
  );
