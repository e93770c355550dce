/**
 * Colorblind-safety hints for a color palette (the palette editor shows them): how the palette looks to
 * viewers with each of the three dichromacies, and which of its colors they can barely tell apart.
 *
 * Simulation: Machado, Oliveira & Fernandes (2009), full severity, applied in linear RGB. Distance: CIE76
 * ΔE in CIELAB (D65), with 12 as "hard to tell apart" for colors side by side on a map (a just-noticeable
 * difference is about 2.3; data colors need much more than noticing).
 */

export type Vision = 'protanopia' | 'deuteranopia' | 'tritanopia';
export type PaletteType = 'sequential' | 'diverging' | 'qualitative';

export const VISIONS: { id: Vision; label: string }[] = [
  { id: 'protanopia', label: 'Protanopia (no red cones)' },
  { id: 'deuteranopia', label: 'Deuteranopia (no green cones)' },
  { id: 'tritanopia', label: 'Tritanopia (no blue cones)' },
];

/** Below this ΔE two colors of a palette are hard to tell apart. */
export const MIN_DISTINCT_DELTA_E = 12;

const MACHADO: Record<Vision, number[]> = {
  protanopia: [0.152286, 1.052583, -0.204868, 0.114503, 0.786281, 0.099216, -0.003882, -0.048116, 1.051998],
  deuteranopia: [0.367322, 0.860646, -0.227968, 0.280085, 0.672501, 0.047413, -0.01182, 0.04294, 0.968881],
  tritanopia: [1.255528, -0.076749, -0.178779, -0.078411, 0.930809, 0.147602, 0.004733, 0.691367, 0.3039],
};

type Rgb = [number, number, number];

const rgbOf = (hex: string): Rgb => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)) as Rgb;
const hexOf = (rgb: Rgb) => `#${rgb.map((v) => Math.round(Math.min(255, Math.max(0, v))).toString(16).padStart(2, '0')).join('')}`;
const toLinear = (v: number) => {
  const c = v / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
};
const fromLinear = (c: number) => 255 * (c <= 0.0031308 ? 12.92 * c : 1.055 * c ** (1 / 2.4) - 0.055);

/** How `hex` looks to a viewer with `vision`. */
export function simulate(hex: string, vision: Vision): string {
  const [r, g, b] = rgbOf(hex).map(toLinear) as Rgb;
  const m = MACHADO[vision];
  const out = [0, 1, 2].map((row) => m[row * 3]! * r + m[row * 3 + 1]! * g + m[row * 3 + 2]! * b);
  return hexOf(out.map((c) => fromLinear(Math.min(1, Math.max(0, c)))) as Rgb);
}

/** CIELAB (D65) of a #rrggbb color. */
export function labOf(hex: string): Rgb {
  const [r, g, b] = rgbOf(hex).map(toLinear) as Rgb;
  const x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047;
  const y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  const z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
  const f = (t: number) => (t > 216 / 24389 ? Math.cbrt(t) : (24389 / 27 * t + 16) / 116);
  return [116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))];
}

export const deltaE = (a: string, b: string): number => {
  const [l1, a1, b1] = labOf(a);
  const [l2, a2, b2] = labOf(b);
  return Math.hypot(l1 - l2, a1 - a2, b1 - b2);
};

/**
 * The pairs a viewer compares: neighbours along a ramp (sequential, diverging), every pair of categories
 * (qualitative: any two may sit side by side on the map).
 */
export function comparedPairs(count: number, type: PaletteType): [number, number][] {
  const pairs: [number, number][] = [];
  for (let i = 0; i < count; i++) {
    if (type !== 'qualitative') {
      if (i + 1 < count) pairs.push([i, i + 1]);
      continue;
    }
    for (let j = i + 1; j < count; j++) pairs.push([i, j]);
  }
  return pairs;
}

export interface PaletteHint {
  /** null: normal color vision (e.g. a ramp whose lightness goes back and forth). */
  vision: Vision | null;
  message: string;
}

const visionLabel = (v: Vision) => VISIONS.find((x) => x.id === v)!.label.split(' ')[0]!.toLowerCase();

/** What makes the palette hard to read, for whom; empty when it reads well for all three. */
export function paletteHints(colors: string[], type: PaletteType): PaletteHint[] {
  const hints: PaletteHint[] = [];
  const pairs = comparedPairs(colors.length, type);
  for (const { id } of VISIONS) {
    const seen = colors.map((c) => simulate(c, id));
    const close = pairs.filter(([i, j]) => deltaE(seen[i]!, seen[j]!) < MIN_DISTINCT_DELTA_E);
    if (close.length) {
      const named = close.slice(0, 3).map(([i, j]) => `${i + 1} and ${j + 1}`).join(', ');
      hints.push({ vision: id, message: `Colors ${named}${close.length > 3 ? ` (and ${close.length - 3} more pairs)` : ''} are hard to tell apart with ${visionLabel(id)}.` });
    }
  }
  if (type === 'sequential' && colors.length > 2) {
    const lightness = colors.map((c) => labOf(c)[0]);
    const steps = lightness.slice(1).map((l, i) => l - lightness[i]!);
    if (!steps.every((d) => d > 0) && !steps.every((d) => d < 0)) {
      hints.push({ vision: null, message: 'Lightness does not change in one direction: order is hard to read in grey and for colorblind viewers.' });
    }
  }
  return hints;
}
