/** What the studio draws over kepler's exported map. */
export interface Decorations {
  title: string;
  /** Ground metres one pixel of the image covers at its centre. */
  metresPerPixel: number;
  attribution: string;
}

/** The longest round length (1, 2 or 5 × 10ⁿ metres) that fits in `maxPixels`, with its label. */
export function scaleBar(metresPerPixel: number, maxPixels: number): { pixels: number; label: string } {
  const most = metresPerPixel * maxPixels;
  const power = 10 ** Math.floor(Math.log10(most));
  const metres = [5, 2, 1].map((m) => m * power).find((m) => m <= most) ?? power;
  const label = metres >= 1000 ? `${metres / 1000} km` : `${metres} m`;
  return { pixels: Math.round(metres / metresPerPixel), label };
}

export const FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';

/**
 * The basemap, then kepler's PNG (layers and legend) onto a canvas of the output size, then the title top left, the scale bar
 * bottom left and the attribution bottom right, on white boxes so they read on any basemap. Sizes follow the
 * image's height (1080 pixels: a 28-pixel title), as kepler scales its legend.
 */
export async function decorate(uri: string, basemap: CanvasImageSource | null, width: number, height: number, d: Decorations): Promise<HTMLCanvasElement> {
  const img = new Image();
  img.src = uri;
  await img.decode();
  const canvas = document.createElement('canvas');
  canvas.width = width;
  canvas.height = height;
  const ctx = canvas.getContext('2d');
  if (!ctx) throw new Error('This browser cannot draw the image.');
  if (basemap) ctx.drawImage(basemap, 0, 0, width, height);
  ctx.drawImage(img, 0, 0, width, height);
  const u = Math.max(0.5, height / 1080);
  const pad = Math.round(12 * u);

  if (d.title.trim()) {
    ctx.font = `600 ${Math.round(28 * u)}px ${FONT}`;
    const title = fit(ctx, d.title.trim(), width * 0.6);
    const w = ctx.measureText(title).width;
    box(ctx, pad, pad, w + 2 * pad, Math.round(28 * u) + 2 * pad);
    ctx.fillStyle = '#1b1d22';
    ctx.textBaseline = 'top';
    ctx.fillText(title, 2 * pad, 2 * pad);
  }

  const bar = scaleBar(d.metresPerPixel, width / 6);
  const barH = Math.round(6 * u);
  ctx.font = `${Math.round(14 * u)}px ${FONT}`;
  const labelW = ctx.measureText(bar.label).width;
  const bx = pad;
  const by = height - pad - barH - Math.round(22 * u);
  box(ctx, bx, by - pad, bar.pixels + labelW + 4 * pad, barH + Math.round(22 * u) + pad);
  ctx.fillStyle = '#1b1d22';
  ctx.fillRect(bx + pad, by + Math.round(14 * u), bar.pixels, barH);
  ctx.textBaseline = 'top';
  ctx.fillText(bar.label, bx + 2 * pad + bar.pixels, by + Math.round(8 * u));

  drawAttribution(ctx, width, height, d.attribution);
  return canvas;
}

/** The basemap's attribution bottom right on a white box, sized to the image's height as the rest. */
export function drawAttribution(ctx: CanvasRenderingContext2D, width: number, height: number, attribution: string) {
  if (!attribution) return;
  const u = Math.max(0.5, height / 1080);
  const pad = Math.round(12 * u);
  ctx.font = `${Math.round(12 * u)}px ${FONT}`;
  const text = fit(ctx, attribution, width * 0.5);
  const w = ctx.measureText(text).width;
  const h = Math.round(12 * u) + pad;
  box(ctx, width - w - pad, height - h, w + pad, h);
  ctx.fillStyle = '#333';
  ctx.textBaseline = 'middle';
  ctx.fillText(text, width - w - pad / 2, height - h / 2);
}

export function box(ctx: CanvasRenderingContext2D, x: number, y: number, w: number, h: number) {
  ctx.fillStyle = 'rgba(255, 255, 255, 0.85)';
  ctx.fillRect(x, y, w, h);
}

/** The text cut with an ellipsis to `max` pixels. */
function fit(ctx: CanvasRenderingContext2D, text: string, max: number): string {
  if (ctx.measureText(text).width <= max) return text;
  let t = text;
  while (t.length > 1 && ctx.measureText(`${t}…`).width > max) t = t.slice(0, -1);
  return `${t}…`;
}

export const toBlob = (canvas: HTMLCanvasElement, type: 'image/png' | 'image/jpeg', quality?: number) =>
  new Promise<Blob>((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('The image could not be encoded.'))), type, quality));
