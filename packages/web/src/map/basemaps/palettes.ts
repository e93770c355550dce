import type { ColorPalette } from '@kepler.gl/constants';

/** A color-palette asset's palette (catalog §3). */
export interface StudioPalette {
  type: 'sequential' | 'diverging' | 'qualitative';
  colors: string[];
}

export const STUDIO_PALETTE_CATEGORY = 'Studio';

const rgbOf = (hex: string) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)) as [number, number, number];
const hexOf = (rgb: number[]) => `#${rgb.map((v) => Math.round(v).toString(16).padStart(2, '0')).join('')}`.toUpperCase();

/** A color at `t` (0..1) along the palette's stops, linear in RGB. */
export function interpolateStops(colors: string[]): (t: number) => string {
  const stops = colors.map(rgbOf);
  return (t: number) => {
    const x = Math.min(1, Math.max(0, t)) * (stops.length - 1);
    const i = Math.min(stops.length - 2, Math.floor(x));
    const f = x - i;
    const a = stops[i]!;
    const b = stops[i + 1]!;
    return hexOf(a.map((v, k) => v + (b[k]! - v) * f));
  };
}

/**
 * A palette asset as kepler's ColorPalette: qualitative ones give their colors as they are (up to their
 * count); sequential and diverging ones are spread over any number of steps.
 */
export function paletteToKepler(name: string, p: StudioPalette): ColorPalette {
  const colors = p.colors.map((c) => c.toUpperCase());
  if (p.type === 'qualitative') {
    return { name, type: 'qualitative', category: STUDIO_PALETTE_CATEGORY, colorBlindSafe: false, maxStep: colors.length, colors: (n: number) => colors.slice(0, n) };
  }
  const at = interpolateStops(colors);
  return {
    name,
    type: p.type,
    category: STUDIO_PALETTE_CATEGORY,
    colorBlindSafe: false,
    colors: (n: number) => (n === colors.length ? colors : Array.from({ length: n }, (_, i) => at(n === 1 ? 0 : i / (n - 1)))),
    linear: () => at,
  };
}

/** The signed-in caller's palettes, read by the color picker each time it renders. */
let studioPalettes: ColorPalette[] = [];
export const setStudioPalettes = (p: ColorPalette[]) => {
  studioPalettes = p;
};
export const getStudioPalettes = () => studioPalettes;
