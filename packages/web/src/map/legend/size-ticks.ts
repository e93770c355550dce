/**
 * The values a size (radius) legend shows: the domain's ends and a few round values between them, each drawn at
 * the radius the layer's sqrt scale gives it (kepler 3.2 draws its radius legend only for a sqrt scale too).
 */

/** A round step (1, 2 or 5 times a power of ten) for about `count` intervals over `span`, as d3's ticks choose it. */
function roundStep(span: number, count: number): number {
  const raw = span / Math.max(1, count);
  const power = 10 ** Math.floor(Math.log10(raw));
  const e = raw / power;
  return power * (e >= Math.sqrt(50) ? 10 : e >= Math.sqrt(10) ? 5 : e >= Math.sqrt(2) ? 2 : 1);
}

/** The legend's values, ascending: the domain's two ends and up to `count - 1` round values strictly between. */
export function sizeTicks(domain: readonly number[], count = 3): number[] {
  const [lo, hi] = domain;
  if (lo === undefined || hi === undefined || !Number.isFinite(lo) || !Number.isFinite(hi)) return [];
  if (hi <= lo) return [lo];
  const step = roundStep(hi - lo, count);
  const inner: number[] = [];
  for (let v = Math.ceil(lo / step) * step; v < hi; v += step) {
    // The step's float error (0.1 + 0.2) kept out of the labels.
    const round = Number(v.toPrecision(12));
    if (round > lo && round < hi) inner.push(round);
  }
  return [lo, ...inner, hi];
}

/** The radius `value` is drawn at on a sqrt scale from `domain` onto `range` (pixels). */
export function sqrtRadius(value: number, domain: readonly number[], range: readonly number[]): number {
  const [d0 = 0, d1 = 1] = domain;
  const [r0 = 0, r1 = 1] = range;
  const a = Math.sqrt(Math.max(0, d0));
  const b = Math.sqrt(Math.max(0, d1));
  if (b === a) return r1;
  return r0 + ((Math.sqrt(Math.max(0, value)) - a) / (b - a)) * (r1 - r0);
}
