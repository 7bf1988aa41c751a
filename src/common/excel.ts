import type ExcelJS from 'exceljs';

import { atFirstUse } from './at-first-use';

/** exceljs, loaded at the first xlsx export or import: one of the heaviest packages, and most instances never write a sheet. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const excel = atFirstUse(() => require('exceljs') as typeof ExcelJS);
