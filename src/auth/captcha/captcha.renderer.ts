import { randomInt } from 'node:crypto';
import { existsSync } from 'node:fs';

import type * as Canvas from '@napi-rs/canvas';
import type { SKRSContext2D } from '@napi-rs/canvas';

import { atFirstUse } from '../../common/at-first-use';

export const CAPTCHA_WIDTH = 120;
export const CAPTCHA_HEIGHT = 40;
export const CAPTCHA_SIZE = 4;

/** Letters and digits without the ones a person confuses (0/o/O, 1/i/I/l/L), as the former svg-captcha's ignoreChars had it. */
export const CAPTCHA_CHARS = 'ABCDEFGHJKMNPQRSTUVWXYZabcdefghjkmnpqrstuvwxyz23456789';

/**
 * The glyphs come from a font file shipped inside an npm package, so a machine without
 * system fonts draws the same captcha. Looked for when the app loads this file: a missing font
 * stops the start instead of serving blank images.
 */
const FONT_FAMILY = 'CaptchaGlyphs';
const fontFile = require.resolve('@fontsource/roboto-mono/files/roboto-mono-latin-700-normal.woff2');
if (!existsSync(fontFile)) throw new Error(`captcha font not found at ${fontFile}`);

/**
 * Skia, loaded at the first captcha: with it come its library and the machine's font files it maps,
 * which an instance that never draws a captcha (CAPTCHA_ENABLED=false, API keys only) would carry
 * for nothing (docs/operations.md, memory).
 */
const canvas = atFirstUse(() => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const loaded = require('@napi-rs/canvas') as typeof Canvas;
  if (!loaded.GlobalFonts.registerFromPath(fontFile, FONT_FAMILY)) {
    throw new Error(`captcha font could not be loaded from ${fontFile}`);
  }
  return loaded;
});

/** The text a captcha asks for; crypto randomness, since guessing it is the attack. */
export function captchaText(size = CAPTCHA_SIZE): string {
  let text = '';
  for (let i = 0; i < size; i++) text += CAPTCHA_CHARS[randomInt(CAPTCHA_CHARS.length)];
  return text;
}

/**
 * The captcha is a raster image whose text cannot be read from its structure.
 * The glyphs are drawn one by one with their own size, slant, rotation and colour, crossed
 * by curves, then the whole picture is warped along two random waves and speckled, so
 * neither the PNG's bytes nor a clean glyph template tell the characters.
 * The PNG encoding, the costly part, runs on the libuv pool, off the event loop.
 */
export function renderCaptcha(text: string): Promise<Buffer> {
  const picture = canvas().createCanvas(CAPTCHA_WIDTH, CAPTCHA_HEIGHT);
  const ctx = picture.getContext('2d');
  drawBackground(ctx);
  drawGlyphs(ctx, text);
  drawCurves(ctx, 2);
  const image = ctx.getImageData(0, 0, CAPTCHA_WIDTH, CAPTCHA_HEIGHT);
  const warped = ctx.createImageData(CAPTCHA_WIDTH, CAPTCHA_HEIGHT);
  warp(image.data, warped.data);
  speckle(warped.data);
  ctx.putImageData(warped, 0, 0);
  return picture.encode('png');
}

const rand = (min: number, max: number) => min + Math.random() * (max - min);

function colour(light: boolean): string {
  const hue = Math.floor(rand(0, 360));
  return light
    ? `hsl(${hue}, ${Math.floor(rand(20, 50))}%, ${Math.floor(rand(85, 95))}%)`
    : `hsl(${hue}, ${Math.floor(rand(40, 80))}%, ${Math.floor(rand(18, 38))}%)`;
}

function drawBackground(ctx: SKRSContext2D): void {
  const gradient = ctx.createLinearGradient(0, 0, CAPTCHA_WIDTH, CAPTCHA_HEIGHT);
  gradient.addColorStop(0, colour(true));
  gradient.addColorStop(1, colour(true));
  ctx.fillStyle = gradient;
  ctx.fillRect(0, 0, CAPTCHA_WIDTH, CAPTCHA_HEIGHT);
  // Faint blobs make a flat background colour useless as a threshold.
  for (let i = 0; i < 6; i++) {
    ctx.fillStyle = colour(true);
    ctx.beginPath();
    ctx.ellipse(
      rand(0, CAPTCHA_WIDTH),
      rand(0, CAPTCHA_HEIGHT),
      rand(4, 16),
      rand(3, 10),
      rand(0, Math.PI),
      0,
      2 * Math.PI,
    );
    ctx.fill();
  }
}

function drawGlyphs(ctx: SKRSContext2D, text: string): void {
  const slot = (CAPTCHA_WIDTH - 16) / text.length;
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  for (let i = 0; i < text.length; i++) {
    ctx.save();
    ctx.translate(8 + slot * (i + 0.5) + rand(-3, 3), CAPTCHA_HEIGHT / 2 + rand(-3, 3));
    ctx.rotate(rand(-0.35, 0.35));
    ctx.transform(1, 0, rand(-0.2, 0.2), 1, 0, 0);
    ctx.font = `${Math.floor(rand(28, 35))}px ${FONT_FAMILY}`;
    ctx.fillStyle = colour(false);
    ctx.fillText(text[i], 0, 0);
    ctx.restore();
  }
}

function drawCurves(ctx: SKRSContext2D, count: number): void {
  for (let i = 0; i < count; i++) {
    ctx.strokeStyle = colour(false);
    ctx.lineWidth = rand(1, 1.8);
    ctx.beginPath();
    ctx.moveTo(rand(-5, 15), rand(5, CAPTCHA_HEIGHT - 5));
    ctx.bezierCurveTo(
      rand(25, 55),
      rand(-10, CAPTCHA_HEIGHT + 10),
      rand(65, 95),
      rand(-10, CAPTCHA_HEIGHT + 10),
      rand(105, CAPTCHA_WIDTH + 5),
      rand(5, CAPTCHA_HEIGHT - 5),
    );
    ctx.stroke();
  }
}

/** Moves every pixel along two sine waves (x by row, y by column), sampling bilinearly. */
function warp(src: Uint8ClampedArray, dst: Uint8ClampedArray): void {
  const ax = rand(1, 2),
    px = rand(16, 26),
    fx = rand(0, 2 * Math.PI);
  const ay = rand(1, 2),
    py = rand(24, 44),
    fy = rand(0, 2 * Math.PI);
  const w = CAPTCHA_WIDTH,
    h = CAPTCHA_HEIGHT;
  for (let y = 0; y < h; y++) {
    const dx = ax * Math.sin((2 * Math.PI * y) / px + fx);
    for (let x = 0; x < w; x++) {
      const sx = Math.min(w - 1, Math.max(0, x + dx));
      const sy = Math.min(h - 1, Math.max(0, y + ay * Math.sin((2 * Math.PI * x) / py + fy)));
      const x0 = Math.floor(sx),
        y0 = Math.floor(sy);
      const x1 = Math.min(w - 1, x0 + 1),
        y1 = Math.min(h - 1, y0 + 1);
      const tx = sx - x0,
        ty = sy - y0;
      const o = (y * w + x) * 4;
      for (let c = 0; c < 4; c++) {
        const top = src[(y0 * w + x0) * 4 + c] * (1 - tx) + src[(y0 * w + x1) * 4 + c] * tx;
        const bottom = src[(y1 * w + x0) * 4 + c] * (1 - tx) + src[(y1 * w + x1) * 4 + c] * tx;
        dst[o + c] = top * (1 - ty) + bottom * ty;
      }
    }
  }
}

/** Scatters dark and light dots, so that no two renders of one text share their pixels. */
function speckle(data: Uint8ClampedArray): void {
  const pixels = CAPTCHA_WIDTH * CAPTCHA_HEIGHT;
  for (let n = Math.floor(pixels * 0.03); n > 0; n--) {
    const o = Math.floor(Math.random() * pixels) * 4;
    const v = Math.random() < 0.5 ? rand(0, 90) : rand(180, 255);
    data[o] = v + rand(-30, 30);
    data[o + 1] = v + rand(-30, 30);
    data[o + 2] = v + rand(-30, 30);
  }
}
