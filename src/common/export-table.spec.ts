import { createHash } from 'node:crypto';

import ExcelJS from 'exceljs';

import { xlsxStream } from './export-table';

// Each row carries a digest so the text hardly compresses: the output fills the buffer after a few
// slices of a few thousand rows in all, which keeps the test quick on a busy host.
const digest = (n: number) => createHash('sha256').update(String(n)).digest('hex');
const slice = (n: number, from: number) =>
  Array.from({ length: n }, (_, i) => [`row ${from + i} ${digest(from + i)}`, from + i, '=1+1']);

describe('xlsxStream', () => {
  it('reads the next slice only once the consumer has drained what is buffered', async () => {
    let pulled = 0;
    async function* slices() {
      for (let s = 0; s < 200; s++) {
        pulled++;
        yield slice(100, s * 100);
      }
    }
    const stream = xlsxStream('t', ['a', 'b', 'c'], slices(), (r) => r);
    // Nobody reads: the writer stops once the compressed output fills the buffer (a few dozen
    // slices) rather than run through all 200. How long it takes
    // to get there depends on the host's load: wait until no slice has been pulled for half a second.
    let stalled = -1;
    for (let waited = 0; pulled !== stalled && waited < 15_000; waited += 500) {
      stalled = pulled;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(pulled).toBe(stalled);
    expect(stalled).toBeLessThan(100);
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    expect(pulled).toBe(200);
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(Buffer.concat(chunks) as unknown as ArrayBuffer);
    const sheet = book.worksheets[0];
    expect(sheet.rowCount).toBe(1 + 20_000);
    expect(sheet.getRow(2).values).toEqual([undefined, `row 0 ${digest(0)}`, 0, "'=1+1"]);
    expect(sheet.getRow(20_001).values).toEqual([undefined, `row 19999 ${digest(19_999)}`, 19_999, "'=1+1"]);
  });

  it('stops reading when the consumer goes away', async () => {
    let pulled = 0;
    async function* slices() {
      for (let s = 0; s < 200; s++) {
        pulled++;
        yield slice(100, 0);
      }
    }
    const stream = xlsxStream('t', ['a', 'b', 'c'], slices(), (r) => r);
    await new Promise((resolve) => setTimeout(resolve, 200));
    stream.destroy();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const after = pulled;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(pulled).toBe(after);
    expect(pulled).toBeLessThan(100);
  });
});
