import { csvCell, csvLine, csvStream, UTF8_BOM } from './csv';

describe('CSV of the log exports', () => {
  it('quotes cells with quotes, commas and line breaks, doubling the quotes', () => {
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    expect(csvCell('cr\rlf')).toBe('"cr\rlf"');
    expect(csvCell('王五')).toBe('王五');
  });

  it('writes null and undefined empty and times in ISO 8601 UTC', () => {
    expect(csvCell(null)).toBe('');
    expect(csvCell(undefined)).toBe('');
    expect(csvCell(new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 6)))).toBe('2026-01-02T03:04:05.006Z');
    expect(csvCell(42)).toBe('42');
  });

  it.each(['=1+1', '+1', '-1', '@SUM(A1)', '\tx', '\r=x'])(
    'neutralises the formula start of %p with an apostrophe',
    (value) => {
      const cell = csvCell(value);
      expect(cell.replace(/^"/, '').startsWith("'")).toBe(true);
      expect(cell).toContain(value.replace(/"/g, '""'));
    },
  );

  it.each([' =1+1', '  +1', '\u3000-1', '\u00a0@SUM(A1)', '\u2002\u200a=x', ' \t=x', '\n=x'])(
    'neutralises a formula start behind leading white space in %p',
    (value) => {
      expect(csvCell(value).replace(/^"/, '').startsWith("'")).toBe(true);
    },
  );

  it.each(['a=1', ' plain', '\u3000王五', 'x-1'])(
    'leaves %p as it is: no formula start after the white space',
    (value) => {
      expect(csvCell(value).replace(/^"/, '')).not.toMatch(/^'/);
    },
  );

  it('quotes a neutralised cell that also holds a comma', () => {
    expect(csvCell('=HYPERLINK("http://x","y")')).toBe('"\'=HYPERLINK(""http://x"",""y"")"');
  });

  it('ends each line with CRLF', () => {
    expect(csvLine(['a', null, 'b,c'])).toBe('a,,"b,c"\r\n');
  });

  it('streams the BOM and header, then every slice, pulling slices one at a time', async () => {
    const pulled: number[] = [];
    async function* slices() {
      for (let i = 0; i < 3; i += 1) {
        pulled.push(i);
        yield [{ n: i }, { n: i + 10 }];
      }
    }
    const stream = csvStream(['n'], slices(), (row: { n: number }) => [row.n]);
    let text = '';
    for await (const chunk of stream) text += chunk.toString();
    expect(text.startsWith(UTF8_BOM)).toBe(true);
    expect(text).toBe(`${UTF8_BOM}n\r\n0\r\n10\r\n1\r\n11\r\n2\r\n12\r\n`);
    expect(pulled).toEqual([0, 1, 2]);
  });
});
