import { atFirstUse } from './at-first-use';

describe('atFirstUse', () => {
  it('makes the value at the first call only, and gives the same one after', () => {
    const load = jest.fn(() => ({ made: true }));
    const value = atFirstUse(load);
    expect(load).not.toHaveBeenCalled();
    const first = value();
    expect(value()).toBe(first);
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('keeps a value that is falsy', () => {
    const load = jest.fn(() => 0);
    const value = atFirstUse(load);
    expect([value(), value()]).toEqual([0, 0]);
    expect(load).toHaveBeenCalledTimes(1);
  });
});
