import type { Page } from 'playwright-core';

/**
 * A real screenshot of the map area: right of kepler's side panel, `inset` pixels in from the other
 * edges (deck's WebGL buffer is not kept for readback, so the screen is what can be measured).
 */
export async function mapAreaPng(page: Page, inset = 60): Promise<Buffer> {
  const box = (await page.locator('.kepler-box').boundingBox())!;
  return page.screenshot({ clip: { x: box.x + 300 + inset, y: box.y + inset, width: box.width - 360 - 2 * inset, height: box.height - 2 * inset } });
}

/**
 * Pixels of the map area close to `rgb`, or, with null, different from the background. `inset`: the margin left out
 * on each side (the map's fitted data reaches about 50 px from its edges: a smaller inset keeps its outer rows).
 */
export async function countPixels(page: Page, rgb: [number, number, number] | null, inset = 60): Promise<number> {
  return countPngPixels(page, await mapAreaPng(page, inset), rgb);
}

/** Pixels of a PNG close to `rgb` (or, with null, unlike its first pixel), decoded by the browser. */
export function countPngPixels(page: Page, png: Buffer, rgb: [number, number, number] | null): Promise<number> {
  return page.evaluate(
    async ({ url, target }) => {
      const img = new Image();
      img.src = url;
      await img.decode();
      const out = document.createElement('canvas');
      out.width = img.width;
      out.height = img.height;
      const ctx = out.getContext('2d')!;
      ctx.drawImage(img, 0, 0);
      const { data } = ctx.getImageData(0, 0, out.width, out.height);
      const ref = target ?? [data[0]!, data[1]!, data[2]!];
      let n = 0;
      for (let i = 0; i < data.length; i += 4) {
        const d = Math.abs(data[i]! - ref[0]!) + Math.abs(data[i + 1]! - ref[1]!) + Math.abs(data[i + 2]! - ref[2]!);
        if (target ? d < 60 : d > 40) n++;
      }
      return n;
    },
    { url: `data:image/png;base64,${png.toString('base64')}`, target: rgb },
  );
}

/** Waits for the map view's first frame with its layers (window.__studioMapReady), with a screenshot on failure. */
export async function waitMapReady(page: Page, timeout = 45_000): Promise<void> {
  try {
    await page.waitForFunction(() => window.__studioMapReady === true, undefined, { timeout });
  } catch (e) {
    await page.screenshot({ path: '/tmp/studio-map-not-ready.png' });
    throw e;
  }
}

export interface RegionStats {
  /** Mean colour. */
  mean: [number, number, number];
  /** Pixels close to the `rgb` asked for. */
  colour: number;
  /** Pixels darker than `dark` (0–255 brightness). */
  dark: number;
  /** Fully opaque pixels. */
  opaque: number;
}

/**
 * A PNG decoded by the browser: its size, and for each named box [x, y, width, height] (null: the whole
 * image) its mean colour and counts of pixels close to `rgb`, darker than `dark`, and opaque.
 */
export function pngRegions<K extends string>(
  page: Page,
  png: Buffer,
  boxes: Record<K, [number, number, number, number] | null>,
  opts: { rgb?: [number, number, number]; dark?: number } = {},
): Promise<{ width: number; height: number; regions: Record<K, RegionStats> }> {
  return page.evaluate(
    async ({ url, boxes, rgb, dark }) => {
      const img = new Image();
      img.src = url;
      await img.decode();
      const c = document.createElement('canvas');
      c.width = img.width;
      c.height = img.height;
      const ctx = c.getContext('2d')!;
      ctx.drawImage(img, 0, 0);
      const regions: Record<string, RegionStats> = {};
      for (const [name, box] of Object.entries(boxes as Record<string, [number, number, number, number] | null>) as [string, [number, number, number, number] | null][]) {
        const [x, y, w, h] = box ?? [0, 0, c.width, c.height];
        const { data } = ctx.getImageData(x, y, w, h);
        const sum = [0, 0, 0];
        const r: RegionStats = { mean: [0, 0, 0], colour: 0, dark: 0, opaque: 0 };
        for (let i = 0; i < data.length; i += 4) {
          for (let k = 0; k < 3; k++) sum[k]! += data[i + k]!;
          if (rgb && Math.abs(data[i]! - rgb[0]) + Math.abs(data[i + 1]! - rgb[1]) + Math.abs(data[i + 2]! - rgb[2]) < 60) r.colour++;
          if ((data[i]! + data[i + 1]! + data[i + 2]!) / 3 < dark) r.dark++;
          if (data[i + 3] === 255) r.opaque++;
        }
        r.mean = sum.map((v) => Math.round(v / (data.length / 4))) as [number, number, number];
        regions[name] = r;
      }
      return { width: img.width, height: img.height, regions: regions as Record<K, RegionStats> };
    },
    { url: `data:image/png;base64,${png.toString('base64')}`, boxes, rgb: opts.rgb ?? null, dark: opts.dark ?? 70 },
  );
}
