import type { Page } from 'playwright-core';

/**
 * A real screenshot of the map area: right of kepler's side panel, `inset` pixels in from the other
 * edges (deck's WebGL buffer is not kept for readback, so the screen is what can be measured).
 */
export async function mapAreaPng(page: Page, inset = 60): Promise<Buffer> {
  const box = (await page.locator('.kepler-box').boundingBox())!;
  return page.screenshot({ clip: { x: box.x + 300 + inset, y: box.y + inset, width: box.width - 360 - 2 * inset, height: box.height - 2 * inset } });
}

/** Pixels of the map area close to `rgb`, or, with null, different from the background. */
export async function countPixels(page: Page, rgb: [number, number, number] | null): Promise<number> {
  return countPngPixels(page, await mapAreaPng(page), rgb);
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
