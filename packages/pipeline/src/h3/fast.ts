import { getPentagons, getBaseCellNumber } from 'h3-js';

/**
 * latLngToCell in plain JS: a line-by-line port of the H3 4.x core that h3-js runs (its compiled
 * `_latLngToCell`: Vec3d -> closest face -> gnomonic hex2d -> IJK -> aperture-7 digits -> base cell and
 * rotations), with the same floating-point operations in the same order up to the hex grid, so a point on a cell's
 * edge falls in the same cell, and the digits in exact whole-number arithmetic (the same results as h3's).
 * The constant tables (face centers, face axes, face IJK -> base cell) are read from h3-js's own memory
 * image rather than retyped; `fastH3()` checks the port against h3-js at load and is undefined if
 * anything disagrees. Points whose base cell is a pentagon are left to h3-js (flagged by hi = 0xffffffff).
 */
export type Tables = { fcp: Float64Array; axes: Float64Array; bc: Int32Array; rot: Int32Array; pent: Uint8Array };
export type FastH3 = (lat: Float64Array, lng: Float64Array, res: number, from: number, to: number, lo: Uint32Array, hi: Uint32Array) => void;

export const NEEDS_FALLBACK = 0xffffffff;


/** Finds the tables in the module's heap by their first values (robust to layout changes between builds). */
export function tablesFrom(heapF64: Float64Array, heap32: Int32Array): Tables | undefined {
  const near = (i: number, v: number) => Math.abs(heapF64[i]! - v) < 1e-12;
  let fcpAt = -1;
  let axAt = -1;
  for (let i = 0; i < heapF64.length - 3 && (fcpAt < 0 || axAt < 0); i++) {
    if (fcpAt < 0 && near(i, 0.2199307791404606) && near(i + 1, 0.6583691780274996) && near(i + 2, 0.7198475378926182)) fcpAt = i;
    if (axAt < 0 && near(i, 5.619958268523939882) && near(i + 1, 3.525563166130744542)) axAt = i;
  }
  const seq = [16, 0, 18, 0, 24, 0, 33, 0, 30, 0, 32, 3, 49, 1];
  let bcAt = -1;
  for (let i = 0; i < heap32.length - seq.length && bcAt < 0; i++) {
    if (heap32[i] === 16 && seq.every((v, k) => heap32[i + k] === v)) bcAt = i;
  }
  if (fcpAt < 0 || axAt < 0 || bcAt < 0) return undefined;
  const fcp = heapF64.slice(fcpAt, fcpAt + 60);
  const axes = new Float64Array(20);
  for (let f = 0; f < 20; f++) axes[f] = heapF64[axAt + f * 3]!;
  const bc = new Int32Array(540);
  const rot = new Int32Array(540);
  for (let n = 0; n < 540; n++) { bc[n] = heap32[bcAt + n * 2]!; rot[n] = heap32[bcAt + n * 2 + 1]!; }
  const pent = new Uint8Array(122);
  for (const p of getPentagons(0)) pent[getBaseCellNumber(p)] = 1;
  return { fcp, axes, bc, rot, pent };
}

/** Self-contained (no outer references): its source is also evaluated inside worker threads. */
export function makeFastH3(t: Tables): FastH3 {
  const { fcp, axes, bc: BC, rot: BROT, pent } = t;
  // Rotating a digit 60° counter-clockwise n times: ROT[n * 7 + digit].
  const ROT1 = [0, 5, 3, 1, 6, 4, 2];
  const ROT = new Int32Array(42);
  for (let n = 0; n < 6; n++) for (let d = 0; d < 7; d++) { let x = d; for (let k = 0; k < n; k++) x = ROT1[x]!; ROT[n * 7 + d] = x; }
  // n / 7 rounded half away from zero (lround's rule; n is a whole number well inside 32 bits: |n| < 2^25 at res 15).
  const div7 = (n: number) => (n >= 0 ? ((n * 2 + 7) / 14) | 0 : -(((7 - n * 2) / 14) | 0));
  // The digit of a unit offset (da, db) in axial coordinates, at (da + 1) * 3 + (db + 1): h3's digits are 4i + 2j + k
  // of the normalized ijk; (-1, 1) and (1, -1) are not unit offsets.
  const UNIT_DIGIT = Int32Array.of(1, 3, 7, 5, 0, 2, 7, 4, 6);
  const posAngle = (a: number) => { const b = a < 0.0 ? a + 6.283185307179586 : a; return !(a >= 6.283185307179586) ? b : b + -6.283185307179586; };
  const digits = new Int32Array(16);
  // Per-face constants of the projection (the same products the per-point code would form).
  const NI = new Float64Array(20), NX = new Float64Array(20), NZ = new Float64Array(20);
  const K1 = new Float64Array(20), K2 = new Float64Array(20), K3 = new Float64Array(20);
  for (let f = 0; f < 20; f++) {
    const B = fcp[f * 3]!, C = fcp[f * 3 + 1]!, A = fcp[f * 3 + 2]!;
    let E = -(A + (B * 0.0 + C * 0.0));
    let ni = B * E + 0.0;
    let nx = C * E + 0.0;
    E = A * E + 1.0;
    let z = Math.sqrt(E * E + (ni * ni + nx * nx));
    z = z > 0.0 ? 1.0 / z : 0.0;
    ni = ni * z; nx = nx * z; z = E * z;
    NI[f] = ni; NX[f] = nx; NZ[f] = z;
    K1[f] = C * ni - B * nx; K2[f] = A * nx - C * z; K3[f] = B * z - A * ni;
  }
  // Candidate closest faces per 2°x2° lat/lng cell: every face that could be the closest anywhere in
  // the cell (conservative angular bounds), in index order, so the scan picks the same face as a full scan.
  const CAND_OFF = new Int32Array(90 * 180 + 1);
  const candList: number[] = [];
  {
    const rho = (1.5 * Math.PI) / 180;
    for (let gi = 0; gi < 90; gi++) for (let gj = 0; gj < 180; gj++) {
      const clat = ((gi * 2 - 89) * Math.PI) / 180, clng = ((gj * 2 - 179) * Math.PI) / 180;
      const cx = Math.cos(clat) * Math.cos(clng), cy = Math.cos(clat) * Math.sin(clng), cz = Math.sin(clat);
      const ang = new Float64Array(20);
      let bestMax = Infinity;
      for (let f = 0; f < 20; f++) {
        const dot = cx * fcp[f * 3]! + cy * fcp[f * 3 + 1]! + cz * fcp[f * 3 + 2]!;
        ang[f] = Math.acos(Math.max(-1, Math.min(1, dot)));
        bestMax = Math.min(bestMax, ang[f]! + rho);
      }
      CAND_OFF[gi * 180 + gj] = candList.length;
      for (let f = 0; f < 20; f++) if (ang[f]! - rho <= bestMax + 1e-9) candList.push(f);
    }
    CAND_OFF[90 * 180] = candList.length;
  }
  const CAND = Int8Array.from(candList);
  return (latA, lngA, res, from, to, loOut, hiOut) => {
    for (let p = from; p < to; p++) {
      const latD = latA[p]!;
      const lngD = lngA[p]!;
      const lat = (latD * Math.PI) / 180;
      const lng = (lngD * Math.PI) / 180;
      if (!Number.isFinite(lat) || !Number.isFinite(lng)) { loOut[p] = 0; hiOut[p] = 0; continue; }
      // Vec3d
      const cl = Math.cos(lat);
      const l = cl * Math.cos(lng);
      const m = cl * Math.sin(lng);
      const k = Math.sin(lat);
      // closest face
      let face = 0;
      let sqd = 5.0;
      let gi = Math.floor((latD + 90) / 2); gi = gi < 0 ? 0 : gi > 89 ? 89 : gi;
      let gj = Math.floor((lngD + 180) / 2); gj = gj < 0 ? 0 : gj > 179 ? 179 : gj;
      const c0 = gi * 180 + gj;
      // Longitudes outside [-180, 180] or wrapped input: scan every face.
      const wide = !(lngD >= -180 && lngD <= 180 && latD >= -90 && latD <= 90);
      const cFrom = wide ? 0 : CAND_OFF[c0]!, cTo = wide ? 20 : CAND_OFF[c0 + 1]!;
      for (let c = cFrom; c < cTo; c++) {
        const g = wide ? c : CAND[c]!;
        const dx = fcp[g * 3]! - l;
        const dy = fcp[g * 3 + 1]! - m;
        const dz = fcp[g * 3 + 2]! - k;
        const d = dx * dx + dy * dy + dz * dz;
        if (d < sqd) { face = g; sqd = d; }
      }
      const r0 = Math.acos(1.0 - sqd * 0.5);
      let vx = 0.0;
      let vy = 0.0;
      if (!(r0 < 1.0e-16)) {
        const D = axes[face]!;
        const B = fcp[face * 3]!;
        const C = fcp[face * 3 + 1]!;
        const A = fcp[face * 3 + 2]!;
        const ni = NI[face]!, nx = NX[face]!, z = NZ[face]!;
        const E = -(l * B + m * C + k * A);
        let w = l + B * E;
        let f = m + C * E;
        const ll = k + A * E;
        let mm = Math.sqrt(ll * ll + (w * w + f * f));
        mm = mm > 0.0 ? 1.0 / mm : 0.0;
        w = w * mm;
        f = f * mm;
        mm = ll * mm;
        f = posAngle(D - posAngle(Math.atan2(mm * K1[face]! + (w * K2[face]! + f * K3[face]!), z * mm + (ni * w + nx * f))));
        const theta = res & 1 ? posAngle(f + -0.3334731722518321) : f;
        let r = Math.tan(r0) * 2.618033988749896;
        for (let a = 0; a < res; a++) r = r * 2.6457513110645907;
        vx = Math.cos(theta) * r;
        vy = Math.sin(theta) * r;
      }
      // hex2d -> IJK
      const x2 = Math.abs(vy) * 1.1547005383792515;
      const x1 = Math.abs(vx) + x2 * 0.5;
      const m1 = ~~x1;
      const m2 = ~~x2;
      const r1 = x1 - m1;
      const r2 = x2 - m2;
      let i: number;
      let j: number;
      if (r1 < 0.5) {
        if (r1 < 0.3333333333333333) { i = m1; j = r2 < (r1 + 1.0) * 0.5 ? m2 : m2 + 1; }
        else { const e = 1.0 - r1; j = m2 + (r2 < e ? 0 : 1); i = e <= r2 && r2 < r1 * 2.0 ? m1 + 1 : m1; }
      } else if (!(r1 < 0.6666666666666666)) { i = m1 + 1; j = r2 < r1 * 0.5 ? m2 : m2 + 1; }
      else if (r2 < 1.0 - r1) { j = m2; i = r1 * 2.0 + -1.0 < r2 ? m1 : m1 + 1; }
      else { j = m2 + 1; i = m1 + 1; }
      if (vx < 0.0) {
        if (!(j & 1)) { const axis = (j / 2) | 0; i = i - (i - axis) * 2; }
        else { const axis = ((j + 1) / 2) | 0; i = i - ((i - axis) * 2 + 1); }
      }
      if (vy < 0.0) { i = i - (((j << 1) | 1) / 2 | 0); j = -j; }
      // Digits, finest first, in the plane's axial coordinates a = i - k, b = j - k of the ijk triple (i, j, 0) above:
      // normalizing a triple keeps both, so h3's per-level steps (the parent by aperture 7 up, its center by
      // aperture 7 down, the child's offset from that center as a unit digit) are whole-number arithmetic on (a, b),
      // with no normalization until the base cell's. h3 rounds (3a - b) / 7 and the like with lround in floating
      // point; no such quotient is within 1/14 of a half, far beyond the product's rounding error at any resolution,
      // so the exact integer rounding of div7 gives the same parents. (Measured: the loop was 55% of the port's time
      // per point at resolution 9; the port went from 2.7 to 3.8M points/s on one thread.)
      let a = i;
      let b = j;
      for (let rr = res - 1; rr >= 0; rr--) {
        let pa: number, pb: number, da: number, db: number;
        if ((rr + 1) & 1) {
          // Class III: up aperture 7 counter-clockwise, then the center back down
          pa = div7(a * 3 - b);
          pb = div7(b * 2 + a);
          da = a - (pa * 2 + pb);
          db = b - (pb * 3 - pa);
        } else {
          pa = div7(a * 2 + b);
          pb = div7(b * 3 - a);
          da = a - (pa * 3 - pb);
          db = b - (pa + pb * 2);
        }
        digits[rr + 1] = UNIT_DIGIT[(da + 1) * 3 + (db + 1)]!;
        a = pa;
        b = pb;
      }
      // The base cell's ijk: (a, b, 0) normalized (inlined: this is the hot loop, no tuple allocations).
      i = a; j = b;
      let kk = 0;
      if (i < 0) { j -= i; kk -= i; i = 0; }
      if (j < 0) { i -= j; kk -= j; j = 0; }
      const mn = i < j ? (i < kk ? i : kk) : j < kk ? j : kk;
      if (mn > 0) { i -= mn; j -= mn; kk -= mn; }
      if (i > 2 || j > 2 || kk > 2) { loOut[p] = 0; hiOut[p] = 0xffffffff; continue; }
      const slot = ((face * 3 + i) * 3 + j) * 3 + kk;
      const baseCell = BC[slot]!;
      if (pent[baseCell]) { loOut[p] = 0; hiOut[p] = 0xffffffff; continue; }
      const rots = (BROT[slot]! % 6) * 7;
      // digits 1..5 -> bits 30..44, 6..15 -> bits 0..29; unused digits are 7
      let high = 0;
      let low = 0;
      for (let d = 1; d <= 5; d++) high = high * 8 + (d <= res ? ROT[rots + digits[d]!]! : 7);
      for (let d = 6; d <= 15; d++) low = low * 8 + (d <= res ? ROT[rots + digits[d]!]! : 7);
      loOut[p] = (low | ((high & 3) << 30)) >>> 0;
      hiOut[p] = ((high >>> 2) | (baseCell << 13) | (res << 20) | (1 << 27)) >>> 0;
    }
  };
}
