import { fieldLabel } from '../../src/common/texts';
import zh from '../../web/src/i18n/zh';

// The console's English texts import the Chinese ones the console's way (no file extension).
const en = jest.requireActual<{ default: typeof zh }>('../../web/src/i18n/en').default;

/*
 * A refused strategy field is named in messages as the strategy page labels it: the service's
 * catalogue (src/common/texts.ts, `field`) and the console's (web/src/i18n) say the same.
 */
describe('strategy field labels', () => {
  const fields = Object.keys(zh.strategy.field) as (keyof typeof zh.strategy.field)[];

  it.each(fields)('%s reads as on the strategy page', (name) => {
    expect(fieldLabel(name, 'zh')).toBe(zh.strategy.field[name].label);
    expect(fieldLabel(name, 'en')).toBe(en.strategy.field[name].label);
  });
});
