/**
 * Reads the coordinates of a GeoJSON Polygon or MultiPolygon straight from its UTF-8 bytes into GeoArrow's buffers
 * (geoarrow.ts), for the text the studio stores (`{"type":"Polygon","coordinates":[…]}`, as JSON.stringify writes
 * it). JSON.parse of that text, its arrays of arrays and the collection of them were most of the map's GeoArrow
 * answer (100k squares: 1.2 s of a 1.6 s profile, at load 14 on 2 cores); this makes no object. Any other text (a
 * Feature, keys in another order or spaced, WKT, a number JSON would refuse, fewer than two numbers in a position)
 * answers false with nothing written, and the caller parses it as before: both ways give the same shapes, bit for bit.
 */

/** Where the scan writes, as geoarrow.ts grows its buffers: each ring's end in positions, each polygon's in rings. */
export interface PolygonSink {
  xy: Buffer;
  rings: Buffer;
  polygons: Buffer;
}
interface Buffer {
  length: number;
  push(v: number): void;
}

const ascii = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0));
const POLYGON = ascii('{"type":"Polygon","coordinates":');
const MULTIPOLYGON = ascii('{"type":"MultiPolygon","coordinates":');
/** 10^0 … 10^22: exact doubles, so m / 10^k is the correctly rounded value of a decimal of up to 15 digits. */
const POW10 = Array.from({ length: 23 }, (_, k) => 10 ** k);
const [OPEN, CLOSE, COMMA, MINUS, DOT, ZERO, NINE, BRACE] = [0x5b, 0x5d, 0x2c, 0x2d, 0x2e, 0x30, 0x39, 0x7d];

/** One batch's scanner over its text bytes; `polygons(start, end)` a row (no closure or object a row). */
export class PolygonScanner {
  private i = 0;
  private end = 0;
  constructor(
    private readonly b: Uint8Array,
    private readonly sink: PolygonSink,
  ) {}

  /**
   * Appends the polygons of the text at `[start, end)` to the sink and answers true; false, with the sink as it was,
   * when the text is not a Polygon or MultiPolygon in the plain form above.
   */
  polygons(start: number, end: number): boolean {
    const { xy, rings, polygons } = this.sink;
    const [xyBefore, ringsBefore, polygonsBefore] = [xy.length, rings.length, polygons.length];
    this.i = start;
    this.end = end;
    const ok = (this.starts(POLYGON) ? this.polygon() : this.starts(MULTIPOLYGON) && this.multipolygon()) && this.take(BRACE) && (this.ws(), this.i === end);
    if (!ok) [xy.length, rings.length, polygons.length] = [xyBefore, ringsBefore, polygonsBefore];
    return ok;
  }

  private ws(): void {
    const { b, end } = this;
    while (this.i < end && (b[this.i] === 0x20 || b[this.i] === 0x0a || b[this.i] === 0x0d || b[this.i] === 0x09)) this.i++;
  }

  /** Skips whitespace, then takes `c` if it is next. */
  private take(c: number): boolean {
    this.ws();
    if (this.i < this.end && this.b[this.i] === c) {
      this.i++;
      return true;
    }
    return false;
  }

  private starts(prefix: Uint8Array): boolean {
    this.ws();
    if (this.end - this.i < prefix.length) return false;
    for (let k = 0; k < prefix.length; k++) if (this.b[this.i + k] !== prefix[k]) return false;
    this.i += prefix.length;
    return true;
  }

  /** A JSON number, or NaN where JSON has none (the whole text then goes the slow way). */
  private number(): number {
    this.ws();
    const { b, end } = this;
    const from = this.i;
    const negative = b[this.i] === MINUS;
    if (negative) this.i++;
    const intFrom = this.i;
    let m = 0;
    let digits = 0;
    let scale = 0;
    while (this.i < end && b[this.i]! >= ZERO && b[this.i]! <= NINE) (m = m * 10 + b[this.i++]! - ZERO), digits++;
    // JSON: at least one digit, and no leading zero before another digit.
    if (digits === 0 || (b[intFrom] === ZERO && digits > 1)) return NaN;
    if (b[this.i] === DOT) {
      this.i++;
      const fracFrom = this.i;
      while (this.i < end && b[this.i]! >= ZERO && b[this.i]! <= NINE) (m = m * 10 + b[this.i++]! - ZERO), digits++;
      scale = this.i - fracFrom;
      if (scale === 0) return NaN;
    }
    let exponent = false;
    if (b[this.i] === 0x65 || b[this.i] === 0x45) {
      exponent = true;
      this.i++;
      if (b[this.i] === 0x2b || b[this.i] === MINUS) this.i++;
      const expFrom = this.i;
      while (this.i < end && b[this.i]! >= ZERO && b[this.i]! <= NINE) this.i++;
      if (this.i === expFrom) return NaN;
    }
    // Up to 15 digits (m below 2^53) and no exponent: one exact division. Otherwise the engine's own parse.
    const v = !exponent && digits <= 15 ? m / POW10[scale]! : Number(String.fromCharCode(...b.subarray(negative ? from + 1 : from, this.i)));
    return negative ? -v : v;
  }

  /** `[x, y, …]`: x and y written; a third (and fourth) number is read and dropped, as everywhere in the studio. */
  private position(): boolean {
    if (!this.take(OPEN)) return false;
    const x = this.number();
    if (Number.isNaN(x) || !this.take(COMMA)) return false;
    const y = this.number();
    if (Number.isNaN(y)) return false;
    while (this.take(COMMA)) if (Number.isNaN(this.number())) return false;
    if (!this.take(CLOSE)) return false;
    this.sink.xy.push(x);
    this.sink.xy.push(y);
    return true;
  }

  // Each `[item, …]` (or `[]`) below, written out rather than through a function per level: a closure made a row cost more than the parse.
  private ring(): boolean {
    if (!this.take(OPEN)) return false;
    if (!this.take(CLOSE)) {
      do if (!this.position()) return false;
      while (this.take(COMMA));
      if (!this.take(CLOSE)) return false;
    }
    this.sink.rings.push(this.sink.xy.length / 2);
    return true;
  }

  private polygon(): boolean {
    if (!this.take(OPEN)) return false;
    if (!this.take(CLOSE)) {
      do if (!this.ring()) return false;
      while (this.take(COMMA));
      if (!this.take(CLOSE)) return false;
    }
    this.sink.polygons.push(this.sink.rings.length - 1);
    return true;
  }

  private multipolygon(): boolean {
    if (!this.take(OPEN)) return false;
    if (this.take(CLOSE)) return true;
    do if (!this.polygon()) return false;
    while (this.take(COMMA));
    return this.take(CLOSE);
  }
}
