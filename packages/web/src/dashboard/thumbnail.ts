/**
 * The dashboards list's thumbnail of a dashboard: its grid drawn small, from what the page shows — each
 * widget's card and title, the chart canvases ECharts drew, KPI values, a table's first rows as lines.
 * Built from the page's own canvases and text (no DOM-to-image library, nothing fetched).
 */
const WIDTH = 480;
const HEIGHT = 300;

export async function dashboardThumbnail(grid: HTMLElement): Promise<Blob | null> {
  const area = grid.getBoundingClientRect();
  const cards = [...grid.querySelectorAll<HTMLElement>('[data-widget]')];
  if (cards.length === 0 || area.width === 0) return null;
  const bottom = Math.max(...cards.map((c) => c.getBoundingClientRect().bottom - area.top));
  const scale = Math.min(WIDTH / area.width, HEIGHT / Math.max(bottom, 1));
  const canvas = document.createElement('canvas');
  canvas.width = WIDTH;
  canvas.height = HEIGHT;
  const ctx = canvas.getContext('2d');
  if (!ctx) return null;
  ctx.fillStyle = '#f5f6f8';
  ctx.fillRect(0, 0, WIDTH, HEIGHT);
  for (const card of cards) {
    const r = card.getBoundingClientRect();
    const [x, y, w, h] = [(r.left - area.left) * scale, (r.top - area.top) * scale, r.width * scale, r.height * scale];
    ctx.fillStyle = '#ffffff';
    ctx.strokeStyle = '#d8dce3';
    ctx.fillRect(x, y, w, h);
    ctx.strokeRect(x + 0.5, y + 0.5, w - 1, h - 1);
    const title = card.querySelector('.widget-header h2')?.textContent ?? '';
    ctx.fillStyle = '#1f2430';
    ctx.font = '600 9px sans-serif';
    ctx.fillText(title.slice(0, 40), x + 5, y + 11, w - 10);
    const body = { x: x + 4, y: y + 15, w: w - 8, h: h - 19 };
    const chart = card.querySelector<HTMLCanvasElement>('.echart canvas');
    const kpi = card.querySelector('.kpi-value')?.textContent;
    const rows = card.querySelectorAll('.widget-table tbody tr').length;
    if (chart && chart.width > 0) {
      const fit = Math.min(body.w / chart.width, body.h / chart.height);
      ctx.drawImage(chart, body.x, body.y, chart.width * fit, chart.height * fit);
    } else if (kpi) {
      ctx.font = `700 ${Math.max(10, Math.min(28, body.h * 0.6))}px sans-serif`;
      ctx.fillText(kpi, body.x + 2, body.y + Math.min(body.h, 30), body.w);
    } else if (rows > 0) {
      ctx.strokeStyle = '#e3e6eb';
      for (let i = 0; i < Math.min(rows, Math.floor(body.h / 6)); i++) {
        ctx.beginPath();
        ctx.moveTo(body.x, body.y + 6 * i + 3);
        ctx.lineTo(body.x + body.w, body.y + 6 * i + 3);
        ctx.stroke();
      }
    }
  }
  return new Promise((resolve) => canvas.toBlob((b) => resolve(b), 'image/png'));
}
