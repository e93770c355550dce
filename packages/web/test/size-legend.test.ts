import { describe, expect, it } from 'vitest';
import { parseMapState } from '@studio/schema';
import { sizeTicks, sqrtRadius } from '../src/map/legend/size-ticks';
import { wrapKeplerConfig } from '../src/map/state/versions';

/** The size (radius) legend's values and radii, and its manual labels in the saved map state (#50). */
describe('the size legend', () => {
  it.each([
    ['a population', [10, 1000], [10, 500, 1000]],
    ['a small range', [0, 1], [0, 0.5, 1]],
    ['round ends', [0, 300], [0, 100, 200, 300]],
    ['decimals without float error', [0.1, 0.7], [0.1, 0.2, 0.4, 0.6, 0.7]],
    ['one value', [5, 5], [5]],
    ['no domain', [], []],
    ['a domain of text', [Number.NaN, 2], []],
  ])('shows %s as its ends and round values between', (_what, domain, ticks) => {
    expect(sizeTicks(domain)).toEqual(ticks);
  });

  it('draws each value at its sqrt-scale radius: a quarter of the value, half the radius', () => {
    expect(sqrtRadius(100, [0, 100], [0, 18])).toBe(18);
    expect(sqrtRadius(25, [0, 100], [0, 18])).toBe(9);
    expect(sqrtRadius(0, [0, 100], [0, 18])).toBe(0);
  });

  it('saves its labels by layer and value, validated, and leaves them out when there are none', () => {
    const kepler = { version: 'v1', config: {} };
    const saved = parseMapState(JSON.parse(JSON.stringify(wrapKeplerConfig(kepler, {}, { sizeLegends: { pts: { '500': 'Mid-sized town' } } }))));
    expect(saved.sizeLegends).toEqual({ pts: { '500': 'Mid-sized town' } });
    expect(wrapKeplerConfig(kepler, {}, { sizeLegends: {} })).not.toHaveProperty('sizeLegends');
    expect(() => parseMapState({ studioVersion: 1, kepler, sizeLegends: { pts: { '500': 'x'.repeat(201) } } })).toThrow(/at most 200 characters/);
    expect(() => parseMapState({ studioVersion: 1, kepler, sizeLegends: { pts: ['a'] } })).toThrow();
  });
});
