import { describe, expect, it } from 'vitest';
import { comparedPairs, deltaE, paletteHints, simulate } from '../../src/map-assets/colorblind';

describe('colorblind simulation', () => {
  it.each([
    ['white', '#ffffff', 'protanopia', '#ffffff'],
    ['black', '#000000', 'tritanopia', '#000000'],
    // Red seen without green cones: a dull olive (Machado 2009, full severity).
    ['pure red', '#ff0000', 'deuteranopia', '#a39000'],
  ] as const)('keeps or shifts %s as the vision model says', (_label, hex, vision, seen) => {
    expect(simulate(hex, vision)).toBe(seen);
  });

  it('brings a red and a green of equal weight close together without green cones, not for blue cones', () => {
    const [red, green] = ['#cc0000', '#669900'];
    expect(deltaE(red, green)).toBeGreaterThan(100);
    expect(deltaE(simulate(red, 'deuteranopia'), simulate(green, 'deuteranopia'))).toBeLessThan(12);
    expect(deltaE(simulate(red, 'tritanopia'), simulate(green, 'tritanopia'))).toBeGreaterThan(100);
  });
});

describe('palette hints', () => {
  it.each([
    ['viridis (sequential) reads for everyone', ['#440154', '#31688e', '#35b779', '#fde725'], 'sequential', []],
    ['a red-green ramp of one lightness', ['#cc0000', '#669900'], 'diverging', ['deuteranopia']],
    // Set1's blue and purple merge without red or green cones; only neighbours count in a ramp, all pairs in categories.
    ['Set1 categories', ['#e41a1c', '#377eb8', '#4daf4a', '#984ea3', '#ff7f00'], 'qualitative', ['protanopia', 'deuteranopia']],
    ['the same colors as a ramp (blue and purple are not neighbours)', ['#e41a1c', '#377eb8', '#4daf4a', '#984ea3', '#ff7f00'], 'diverging', []],
    ['a sequential ramp that goes dark, light, dark', ['#000000', '#ffffff', '#111111'], 'sequential', [null]],
  ] as const)('%s', (_label, colors, type, visions) => {
    expect(paletteHints([...colors], type).map((h) => h.vision)).toEqual(visions);
  });

  it('names the colors a viewer confuses, counted from 1', () => {
    expect(paletteHints(['#cc0000', '#669900'], 'qualitative')[0]?.message).toBe('Colors 1 and 2 are hard to tell apart with deuteranopia.');
  });

  it.each([
    [3, 'sequential', [[0, 1], [1, 2]]],
    [3, 'qualitative', [[0, 1], [0, 2], [1, 2]]],
    [1, 'diverging', []],
  ] as const)('compares %i colors of a %s palette pairwise as a viewer does', (count, type, pairs) => {
    expect(comparedPairs(count, type)).toEqual(pairs);
  });
});
