import type ExcelJS from 'exceljs';

let loaded: typeof ExcelJS | undefined;

/** exceljs, loaded at the first xlsx export or import: it weighs about 30 MiB, and most instances never write a sheet. */
export function excel(): typeof ExcelJS {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  loaded ??= require('exceljs') as typeof ExcelJS;
  return loaded;
}
