import { createCanvas, loadImage } from '@napi-rs/canvas';

import { CAPTCHA_CHARS, CAPTCHA_HEIGHT, CAPTCHA_WIDTH, captchaText, renderCaptcha } from './captcha.renderer';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** RGBA pixels of a PNG, decoded by an independent path (Skia's decoder drawing onto a fresh canvas). */
async function pixels(png: Buffer): Promise<{ width: number; height: number; data: Uint8ClampedArray }> {
  const image = await loadImage(png);
  const ctx = createCanvas(image.width, image.height).getContext('2d');
  ctx.drawImage(image, 0, 0);
  return { width: image.width, height: image.height, data: ctx.getImageData(0, 0, image.width, image.height).data };
}

describe('captcha renderer', () => {
  it('draws 4 characters from a set without 0/O/o, 1/I/i/l/L', () => {
    expect(CAPTCHA_CHARS).not.toMatch(/[0oO1iIlL]/);
    const texts = Array.from({ length: 300 }, () => captchaText());
    for (const text of texts) expect(text).toMatch(/^[A-HJKMNP-Za-hjkmnp-z2-9]{4}$/);
    expect(new Set(texts).size).toBeGreaterThan(290);
  });

  it('renders a PNG of 120x40 pixels with no SVG structure and no text in its bytes', async () => {
    const png = await renderCaptcha('Ab3x');
    expect(png.subarray(0, 8)).toEqual(PNG_SIGNATURE);
    const { width, height } = await pixels(png);
    expect({ width, height }).toEqual({ width: CAPTCHA_WIDTH, height: CAPTCHA_HEIGHT });
    const bytes = png.toString('latin1');
    for (const structure of ['<svg', '<path', '<text', 'Ab3x']) expect(bytes).not.toContain(structure);
  });

  it('puts the glyphs in dark ink on a light background, for a person to read', async () => {
    const shares = async (text: string) => {
      const { data } = await pixels(await renderCaptcha(text));
      let dark = 0,
        light = 0;
      for (let i = 0; i < data.length; i += 4) {
        const luma = 0.299 * data[i] + 0.587 * data[i + 1] + 0.114 * data[i + 2];
        if (luma < 110) dark++;
        else if (luma > 190) light++;
      }
      return { dark: dark / (data.length / 4), light: light / (data.length / 4) };
    };
    const mean = async (text: string) => {
      const all = await Promise.all(Array.from({ length: 10 }, () => shares(text)));
      return { dark: all.reduce((s, x) => s + x.dark, 0) / 10, light: Math.min(...all.map((x) => x.light)) };
    };
    const withGlyphs = await mean('WXYZ');
    const curvesAndSpecklesOnly = await mean('');
    // About 11 in 100 pixels are glyph ink (a missing font would draw none); most of the picture stays light.
    expect(withGlyphs.dark - curvesAndSpecklesOnly.dark).toBeGreaterThan(0.06);
    expect(withGlyphs.light).toBeGreaterThan(0.5);
  });

  it('draws the same text differently every time', async () => {
    const first = await renderCaptcha('Kp7w');
    const second = await renderCaptcha('Kp7w');
    expect(first.equals(second)).toBe(false);
    const [a, b] = [(await pixels(first)).data, (await pixels(second)).data];
    let differing = 0;
    for (let i = 0; i < a.length; i += 4)
      if (Math.abs(a[i] - b[i]) + Math.abs(a[i + 1] - b[i + 1]) + Math.abs(a[i + 2] - b[i + 2]) > 60) differing++;
    // Not a re-encoding of one picture: a large share of the pixels moved or changed colour.
    expect(differing / (a.length / 4)).toBeGreaterThan(0.2);
  });
});
