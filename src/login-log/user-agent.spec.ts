import Bowser from 'bowser';

import { parseUserAgent } from './user-agent';

const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0';

describe('parseUserAgent', () => {
  it('names browser and OS the same way the first time and every time after', () => {
    const first = parseUserAgent(CHROME);
    expect(first).toEqual({ browser: 'Chrome 120.0', os: 'Windows 10' });
    for (let i = 0; i < 3; i += 1) expect(parseUserAgent(CHROME)).toEqual(first);
    expect(parseUserAgent(FIREFOX)).toEqual({ browser: 'Firefox 121.0', os: 'Linux' });
  });

  it('parses a User-Agent once however many logins carry it, and a new one once more', () => {
    const parse = jest.spyOn(Bowser, 'parse');
    try {
      const ua = `${CHROME} once/${Date.now()}`;
      for (let i = 0; i < 5; i += 1) expect(parseUserAgent(ua).browser).toBe('Chrome 120.0');
      expect(parse).toHaveBeenCalledTimes(1);
      parseUserAgent(`${ua} other`);
      expect(parse).toHaveBeenCalledTimes(2);
    } finally {
      parse.mockRestore();
    }
  });

  it('gives callers a result they cannot change for the next caller', () => {
    const parts = parseUserAgent(CHROME);
    expect(() => {
      (parts as { browser: string | null }).browser = 'x';
    }).toThrow(TypeError);
    expect(parseUserAgent(CHROME).browser).toBe('Chrome 120.0');
  });

  it('parses a User-Agent too long to keep, and many different ones, as it parses the first', () => {
    const long = `${FIREFOX} ${'x'.repeat(2_000)}`;
    expect(parseUserAgent(long)).toEqual(parseUserAgent(long));
    expect(parseUserAgent(long).browser).toBe('Firefox 121.0');
    for (let i = 0; i < 1_000; i += 1) expect(parseUserAgent(`${CHROME} build/${i}`).browser).toBe('Chrome 120.0');
    expect(parseUserAgent('')).toEqual({ browser: null, os: null });
  });
});
