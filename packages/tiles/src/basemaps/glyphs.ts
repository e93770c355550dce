import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import type opentype from 'opentype.js';
import Pbf from 'pbf';
import { badInput } from '@studio/schema';

const require = createRequire(import.meta.url);

/**
 * Glyphs for the basemaps' labels, made by the studio from a font package (DejaVu Sans) instead of a glyph
 * server on another host. MapLibre asks for 256 code points at a time as signed distance fields in its
 * glyph protobuf; each range is made on its first request and kept.
 *
 * The field follows what MapLibre's shader expects of server glyphs (and what its own TinySDF glyphs do):
 * 24 px glyphs, a 3 px border, 8 px of distance on either side of the outline, the outline at 192 of 255.
 */
export const GLYPH_FONT = 'Studio Sans';
const FONT_FILE = 'dejavu-fonts-ttf/ttf/DejaVuSans.ttf';
const SIZE = 24;
const BORDER = 3;
const RADIUS = 8;
const CUTOFF = 0.25;
/**
 * MapLibre places a server glyph's `top` against an origin above the em box; its own local glyphs use
 * "height above the baseline − 27.5" to line up with them (render/glyph_manager.ts), and so do these.
 */
const TOP_ADJUSTMENT = 27.5;
const RANGE_SIZE = 256;
const MAX_CODE_POINT = 65_535;

/** A glyph outline as straight segments, in pixels with y growing downwards from the baseline. */
type Segment = [number, number, number, number];

export interface GlyphBitmap {
  id: number;
  width: number;
  height: number;
  left: number;
  top: number;
  advance: number;
  /** (width + 6) × (height + 6) bytes; empty for a glyph with no outline (space). */
  bitmap: Uint8Array;
}

/** Curves become this many straight pieces: at 24 px a piece is under a pixel long. */
const CURVE_STEPS = 8;

function segmentsOf(commands: opentype.PathCommand[]): Segment[] {
  const out: Segment[] = [];
  let x = 0;
  let y = 0;
  let startX = 0;
  let startY = 0;
  const to = (nx: number, ny: number) => {
    if (nx !== x || ny !== y) out.push([x, y, nx, ny]);
    x = nx;
    y = ny;
  };
  for (const c of commands) {
    if (c.type === 'M') {
      x = startX = c.x;
      y = startY = c.y;
    } else if (c.type === 'L') {
      to(c.x, c.y);
    } else if (c.type === 'Q') {
      const [x0, y0] = [x, y];
      for (let i = 1; i <= CURVE_STEPS; i++) {
        const t = i / CURVE_STEPS;
        const u = 1 - t;
        to(u * u * x0 + 2 * u * t * c.x1 + t * t * c.x, u * u * y0 + 2 * u * t * c.y1 + t * t * c.y);
      }
    } else if (c.type === 'C') {
      const [x0, y0] = [x, y];
      for (let i = 1; i <= CURVE_STEPS; i++) {
        const t = i / CURVE_STEPS;
        const u = 1 - t;
        to(u ** 3 * x0 + 3 * u * u * t * c.x1 + 3 * u * t * t * c.x2 + t ** 3 * c.x, u ** 3 * y0 + 3 * u * u * t * c.y1 + 3 * u * t * t * c.y2 + t ** 3 * c.y);
      }
    } else if (c.type === 'Z') {
      to(startX, startY);
    }
  }
  return out;
}

/** Distance from (px, py) to the nearest segment, negative inside the outline (non-zero winding). */
function signedDistance(segments: Segment[], px: number, py: number): number {
  let best = Infinity;
  let winding = 0;
  for (const [ax, ay, bx, by] of segments) {
    const dx = bx - ax;
    const dy = by - ay;
    const t = Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy || 1)));
    const d = Math.hypot(px - (ax + t * dx), py - (ay + t * dy));
    if (d < best) best = d;
    if (ay <= py ? by > py : by <= py) {
      const side = (bx - ax) * (py - ay) - (px - ax) * (by - ay);
      if (by > ay ? side > 0 : side < 0) winding += by > ay ? 1 : -1;
    }
  }
  return winding !== 0 ? -best : best;
}

/** One glyph as MapLibre's signed distance field. */
export function rasterizeGlyph(font: opentype.Font, glyph: opentype.Glyph, id: number): GlyphBitmap {
  const scale = SIZE / font.unitsPerEm;
  const advance = Math.round((glyph.advanceWidth ?? 0) * scale);
  const segments = segmentsOf(glyph.getPath(0, 0, SIZE).commands);
  if (!segments.length) return { id, width: 0, height: 0, left: 0, top: -Math.round(TOP_ADJUSTMENT), advance, bitmap: new Uint8Array() };
  let [x1, y1, x2, y2] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const [ax, ay, bx, by] of segments) {
    x1 = Math.min(x1, ax, bx);
    x2 = Math.max(x2, ax, bx);
    y1 = Math.min(y1, ay, by);
    y2 = Math.max(y2, ay, by);
  }
  const left = Math.floor(x1);
  const topY = Math.floor(y1); // y grows downwards: the glyph's top is its smallest y
  const width = Math.ceil(x2) - left;
  const height = Math.ceil(y2) - topY;
  const w = width + 2 * BORDER;
  const h = height + 2 * BORDER;
  const bitmap = new Uint8Array(w * h);
  for (let row = 0; row < h; row++) {
    for (let col = 0; col < w; col++) {
      const d = signedDistance(segments, left - BORDER + col + 0.5, topY - BORDER + row + 0.5);
      bitmap[row * w + col] = Math.max(0, Math.min(255, Math.round(255 - 255 * (d / RADIUS + CUTOFF))));
    }
  }
  return { id, width, height, left, top: Math.round(-topY - TOP_ADJUSTMENT), advance, bitmap };
}

/** The glyph protobuf of one fontstack and range (MapLibre's glyphs.proto). */
export function encodeGlyphs(fontstack: string, range: string, glyphs: GlyphBitmap[]): Uint8Array {
  const pbf = new Pbf();
  // writeMessage calls back with the same Pbf: nested messages write through `pbf` itself.
  const writeGlyph = (g: GlyphBitmap) => {
    pbf.writeVarintField(1, g.id);
    if (g.bitmap.length) pbf.writeBytesField(2, g.bitmap);
    pbf.writeVarintField(3, g.width);
    pbf.writeVarintField(4, g.height);
    pbf.writeSVarintField(5, g.left);
    pbf.writeSVarintField(6, g.top);
    pbf.writeVarintField(7, g.advance);
  };
  pbf.writeMessage(1, () => {
    pbf.writeStringField(1, fontstack);
    pbf.writeStringField(2, range);
    for (const g of glyphs) pbf.writeMessage(3, writeGlyph, g);
  }, null);
  return pbf.finish();
}

/** The first code point of a range named `start-end` (256 code points, aligned), or 422. */
export function parseRange(range: string): number {
  const m = /^(\d{1,5})-(\d{1,5})$/.exec(range);
  const start = m ? Number(m[1]) : NaN;
  if (!m || start % RANGE_SIZE !== 0 || Number(m[2]) !== start + RANGE_SIZE - 1 || start > MAX_CODE_POINT) {
    throw badInput('A glyph range is 256 code points, e.g. 0-255');
  }
  return start;
}

export class GlyphRanges {
  private font: Promise<opentype.Font> | null = null;
  private readonly ranges = new Map<number, Promise<Uint8Array>>();

  private loadFont(): Promise<opentype.Font> {
    // opentype.js is loaded with the first glyphs asked for, not when the server starts.
    this.font ??= Promise.all([import('opentype.js'), fs.readFile(require.resolve(FONT_FILE))]).then(([{ default: reader }, b]) =>
      reader.parse(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)),
    );
    return this.font;
  }

  /**
   * The glyphs of `range`. Every fontstack gets the one font (MapLibre reads the glyphs, not the stack's
   * name): styles uploaded from elsewhere name their own fonts, and a label in the studio's font beats none.
   */
  async range(range: string): Promise<Uint8Array> {
    const start = parseRange(range);
    let made = this.ranges.get(start);
    if (!made) {
      made = this.loadFont().then((font) => {
        const glyphs: GlyphBitmap[] = [];
        for (let id = start; id < start + RANGE_SIZE; id++) {
          const glyph = font.charToGlyph(String.fromCharCode(id));
          // Index 0 is .notdef, the font's "missing" box: leaving the code point out lets MapLibre skip it.
          if (glyph.index !== 0) glyphs.push(rasterizeGlyph(font, glyph, id));
        }
        return encodeGlyphs(GLYPH_FONT, range, glyphs);
      });
      this.ranges.set(start, made);
      made.catch(() => this.ranges.delete(start));
    }
    return made;
  }
}
