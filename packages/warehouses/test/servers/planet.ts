import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Planet's Orders and Data APIs for the calls the Planet storage driver makes (written from Planet's API
 * reference): GET /compute/ops/orders/v2 and …/{id} (state, _links.results with download locations),
 * GET /data/v1/searches and …/{id}/results (GeoJSON footprints, paged by _links._next); HTTP Basic with
 * the API key as user name; downloads by signed location, without the key.
 */

export interface PlanetServer {
  url: string;
  port: number;
  /** Paths requested, in order. */
  paths: string[];
  close(): Promise<void>;
}

/** `scenes` footprints in the saved search, served `pageSize` a page; one order with two result files. */
export async function startPlanetServer(opts: { apiKey: string; scenes: number; pageSize: number; orderFiles: Record<string, string> }): Promise<PlanetServer> {
  const paths: string[] = [];
  const feature = (i: number) => ({
    type: 'Feature',
    id: `20240601_${String(i).padStart(6, '0')}_1058`,
    geometry: { type: 'Polygon', coordinates: [[[-122.5 + i / 100, 37.7], [-122.4 + i / 100, 37.7], [-122.4 + i / 100, 37.8], [-122.5 + i / 100, 37.8], [-122.5 + i / 100, 37.7]]] },
    properties: { item_type: 'PSScene', cloud_cover: (i % 10) / 10, acquired: `2024-06-01T10:${String(i % 60).padStart(2, '0')}:00Z` },
  });
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const origin = `http://${req.headers.host}`;
    paths.push(url.pathname);
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const download = /^\/download\/([\w-]+)\/(.+)$/.exec(url.pathname);
    if (download) {
      const body = url.searchParams.get('token') === 'signed' ? opts.orderFiles[download[2]!] : undefined;
      if (body === undefined) return send(403, { message: 'Signature expired' });
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      return res.end(body);
    }
    const [user] = Buffer.from(String(req.headers.authorization ?? '').replace(/^Basic /, ''), 'base64').toString().split(':');
    if (user !== opts.apiKey) return send(401, { message: 'Please enter your API key, or email and password.' });
    const order = {
      id: 'a1b2c3d4-order',
      name: 'Bay Area scenes',
      state: 'success',
      created_on: '2024-06-02T08:00:00.000Z',
      _links: { results: Object.keys(opts.orderFiles).map((name) => ({ name: `a1b2c3d4-order/${name}`, location: `${origin}/download/a1b2c3d4-order/${name}?token=signed` })) },
    };
    if (url.pathname === '/compute/ops/orders/v2') return send(200, { orders: [order] });
    if (url.pathname === `/compute/ops/orders/v2/${order.id}`) return send(200, order);
    if (url.pathname === '/data/v1/searches') return send(200, { searches: [{ id: 'bay-scenes', name: 'Bay scenes', updated: '2024-06-03T00:00:00Z' }] });
    if (url.pathname === '/data/v1/searches/bay-scenes/results') {
      const page = Number(url.searchParams.get('_page') ?? 0);
      const from = page * opts.pageSize;
      const features = Array.from({ length: Math.max(0, Math.min(opts.pageSize, opts.scenes - from)) }, (_x, k) => feature(from + k));
      const more = from + opts.pageSize < opts.scenes;
      return send(200, { type: 'FeatureCollection', features, _links: { _self: `${origin}${url.pathname}`, ...(more && { _next: `${origin}/data/v1/searches/bay-scenes/results?_page=${page + 1}` }) } });
    }
    send(404, { message: `Not found: ${url.pathname}` });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    paths,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
