import { describe, expect, it } from 'vitest';
import { scaleBar } from '../src/map/export/decorate';
import { jpegToPdf } from '../src/map/export/pdf';
import { attributionOf, checkExportSize, metresPerPixel } from '../src/map/export/render';

describe('the exported image’s parts', () => {
  it.each([
    // metres a pixel, most pixels, bar pixels, label
    [10, 320, 200, '2 km'],
    [1, 320, 200, '200 m'],
    [3.7, 320, 270, '1 km'],
    [0.5, 100, 100, '50 m'],
    [1000, 300, 200, '200 km'],
  ])('a scale bar at %s m/px within %s px is %s px long, "%s"', (mpp, max, pixels, label) => {
    expect(scaleBar(mpp, max)).toEqual({ pixels, label });
  });

  it('measures the ground a pixel covers as Web Mercator on 512-pixel tiles does', () => {
    // At zoom 0 the equator's 40,075 km spread over 512 pixels; at 60° half of it.
    expect(metresPerPixel(0, 0)).toBeCloseTo(78_271.5, 0);
    expect(metresPerPixel(60, 0)).toBeCloseTo(39_135.8, 0);
    expect(metresPerPixel(0, 10)).toBeCloseTo(76.44, 2);
  });

  it.each([
    [1920, 1080, null],
    [3840, 2160, null],
    [3841, 2160, 'The image can be at most 3840 × 2160 pixels.'],
    [100, 1080, 'The image must be at least 200 × 200 pixels.'],
    [1920.5, 1080, 'The image must be at least 200 × 200 pixels.'],
  ])('a %s × %s image: %s', (w, h, message) => {
    expect(checkExportSize(w, h)).toBe(message);
  });

  it('writes the basemap sources’ attribution as text, once each', () => {
    expect(attributionOf(['<a href="x">&copy; Natural Earth</a>', '&copy; Natural Earth', '', 'GeoNames &amp; friends'])).toBe('© Natural Earth · GeoNames & friends');
  });

  it('wraps a JPEG into a one-page PDF whose cross-reference table points at each object', async () => {
    const jpeg = new Uint8Array([0xff, 0xd8, 0xff, 0xd9]);
    const pdf = new Uint8Array(await jpegToPdf(jpeg, 1920, 1080).arrayBuffer());
    const text = new TextDecoder('latin1').decode(pdf);
    expect(text.startsWith('%PDF-1.4')).toBe(true);
    expect(text).toContain('/MediaBox [0 0 1440.00 810.00]');
    expect(text).toContain('/Width 1920 /Height 1080');
    const xref = Number(/startxref\n(\d+)/.exec(text)![1]);
    expect(text.slice(xref, xref + 4)).toBe('xref');
    const offsets = [...text.slice(xref).matchAll(/^(\d{10}) 00000 n $/gm)].map((m) => Number(m[1]));
    expect(offsets).toHaveLength(5);
    offsets.forEach((o, i) => expect(text.slice(o, o + 8)).toBe(`${i + 1} 0 obj\n`));
  });
});
