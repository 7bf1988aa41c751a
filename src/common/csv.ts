import { Readable } from 'node:stream';

/** UTF-8 byte order mark: without it Excel reads a CSV in the machine's ANSI code page and Chinese turns into mojibake. */
export const UTF8_BOM = '\uFEFF';

/**
 * Cells a spreadsheet would take for a formula (CSV/formula injection, OWASP): a `=`,
 * `+`, `-` or `@`, tab or carriage return as the first character after any leading white space
 * (Unicode spaces such as U+3000 included, and invisible format characters), because LibreOffice's
 * "trim spaces" import and some spreadsheets skip them before reading the formula. Such a cell is
 * written with a leading apostrophe, which Excel and LibreOffice show as text; the value's own
 * characters stay as they were. Exported values are user-controlled (an account typed at the login
 * form), so one typed as ` =HYPERLINK(...)` must not become a live link on an auditor's desk.
 */
const FORMULA_START = /^[\p{White_Space}\p{Cf}]*[=+\-@\t\r]/u;

/** A cell's text with a leading apostrophe when a spreadsheet would read it as a formula (CSV and xlsx alike). */
export function neutralised(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}

/** One cell of RFC 4180: null and undefined empty, a Date in ISO 8601 UTC, quoted when it holds `"`, `,`, CR or LF. */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = neutralised(value instanceof Date ? value.toISOString() : String(value));
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One record, CRLF-terminated as RFC 4180 writes it. */
export function csvLine(cells: readonly unknown[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}

/**
 * A CSV document as a byte stream: BOM, the header row, then the rows of each slice `slices`
 * yields. A slice is read only when the consumer has taken the previous one (back-pressure of a
 * byte stream with a small buffer), so memory stays flat however many rows follow.
 */
export function csvStream<T>(
  header: readonly string[],
  slices: AsyncIterable<T[]>,
  cells: (row: T) => unknown[],
): Readable {
  async function* lines(): AsyncGenerator<string> {
    yield UTF8_BOM + csvLine(header);
    for await (const slice of slices) {
      let chunk = '';
      for (const row of slice) chunk += csvLine(cells(row));
      if (chunk) yield chunk;
    }
  }
  return Readable.from(lines(), { objectMode: false, highWaterMark: 64 * 1024 });
}
