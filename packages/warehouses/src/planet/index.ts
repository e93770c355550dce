import { writeFile } from 'node:fs/promises';
import { CONNECTION_CONFIGS, StudioError, badInput } from '@studio/schema';
import { cancelled, type DriverTarget } from '../driver';
import { hostAndPort } from '../pinned';
import { HttpClient } from '../http';
import { contentTypeOfKey, type StorageDriver, type StorageItem } from '../storage';

/**
 * Planet through its public REST APIs, with the account's API key (HTTP Basic, the key as user name):
 * the Orders API (GET /compute/ops/orders/v2, …/{id}: an order's state and its result files) and the
 * Data API's saved searches (GET /data/v1/searches, …/{id}/results: scene footprints as GeoJSON, page by
 * page through _links._next). As a storage connection: `orders/<id>/<file>` objects are an order's
 * results (downloaded from the location Planet gives, which the network rule checks like any host),
 * `searches/<id>.geojson` objects are a saved search's footprints.
 */

const DEFAULT_API = 'https://api.planet.com';
const MAX_FOOTPRINT_PAGES = 100;

interface Target {
  api: HttpClient;
  authorization: string;
  orderId?: string;
  t: DriverTarget;
}

interface Order {
  id: string;
  name?: string;
  state?: string;
  created_on?: string;
  _links?: { results?: { name: string; location: string; expires_at?: string }[] };
}

async function planetTarget(t: DriverTarget): Promise<Target> {
  const parsed = CONNECTION_CONFIGS.planet.safeParse(t.config);
  if (!parsed.success) throw badInput('Could not parse data connection', parsed.error.issues[0]?.message);
  const key = t.credentials?.token;
  if (!key) throw new StudioError(422, 'This connection needs a Planet API key');
  return { api: await clientFor(parsed.data.apiUrl ?? DEFAULT_API, t), authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}`, orderId: parsed.data.orderId, t };
}

function clientFor(url: string, t: DriverTarget): Promise<HttpClient> {
  const u = new URL(url);
  return HttpClient.connect({ protocol: u.protocol as 'http:' | 'https:', ...hostAndPort(u) }, t.reach, t.settings);
}

async function get<T>(p: Target, path: string, signal?: AbortSignal): Promise<T> {
  const r = await p.api.request<T & { message?: string; general?: { message?: string }[] }>({ path, headers: { authorization: p.authorization }, signal });
  if (r.status === 401 || r.status === 403) throw new StudioError(422, `Could not connect: Planet refused the API key (${r.status})`);
  if (r.status === 404) throw new StudioError(422, `Planet has no ${path.split('?')[0]}`);
  if (r.status < 200 || r.status >= 300) {
    const b = r.body as { message?: string; general?: { message?: string }[] } | null;
    throw new StudioError(422, b?.message ?? b?.general?.[0]?.message ?? `Planet answered ${r.status}`);
  }
  return r.body;
}

async function orders(p: Target): Promise<Order[]> {
  if (p.orderId) return [await get<Order>(p, `/compute/ops/orders/v2/${encodeURIComponent(p.orderId)}`)];
  return (await get<{ orders?: Order[] }>(p, '/compute/ops/orders/v2')).orders ?? [];
}

/** A result file's name without the order id Planet puts in front of it. */
const fileName = (orderId: string, name: string) => name.replace(new RegExp(`^${orderId}/`), '');

export const planetDriver: StorageDriver = {
  async test(target) {
    const p = await planetTarget(target);
    if (p.orderId) {
      const o = (await orders(p))[0]!;
      return { ok: true as const, serverVersion: `Planet order ${o.name ?? o.id} (${o.state ?? 'unknown state'})` };
    }
    const list = await orders(p);
    return { ok: true as const, serverVersion: `Planet: ${list.length} order${list.length === 1 ? '' : 's'}` };
  },

  async list(target, prefix) {
    const p = await planetTarget(target);
    if (prefix === '') {
      return { items: [{ name: 'orders/', key: 'orders/', type: 'folder' }, ...(p.orderId ? [] : [{ name: 'searches/', key: 'searches/', type: 'folder' } as StorageItem])], truncated: false };
    }
    if (prefix === 'orders/') {
      const items = (await orders(p)).map((o): StorageItem => ({ name: `${o.id}/`, key: `orders/${o.id}/`, type: 'folder', lastModified: o.created_on }));
      return { items, truncated: false };
    }
    const order = /^orders\/([\w-]+)\/$/.exec(prefix);
    if (order) {
      if (p.orderId && p.orderId !== order[1]) throw badInput(`${prefix} is outside this connection's order ${p.orderId}`);
      const o = await get<Order>(p, `/compute/ops/orders/v2/${encodeURIComponent(order[1]!)}`);
      const items = (o._links?.results ?? []).map((r): StorageItem => ({ name: fileName(o.id, r.name), key: `orders/${o.id}/${fileName(o.id, r.name)}`, type: 'object' }));
      return { items, truncated: false };
    }
    if (prefix === 'searches/' && !p.orderId) {
      const searches = (await get<{ searches?: { id: string; name?: string; updated?: string }[] }>(p, '/data/v1/searches')).searches ?? [];
      return { items: searches.map((s): StorageItem => ({ name: `${s.id}.geojson`, key: `searches/${s.id}.geojson`, type: 'object', lastModified: s.updated })), truncated: false };
    }
    throw badInput(`Planet connections list orders/ and searches/, not ${prefix}`);
  },

  async download(target, key, file, signal) {
    const p = await planetTarget(target);
    const search = /^searches\/([\w-]+)\.geojson$/.exec(key);
    if (search && !p.orderId) {
      // Footprints of the saved search's scenes: every page, as one FeatureCollection.
      const features: unknown[] = [];
      let path: string | null = `/data/v1/searches/${encodeURIComponent(search[1]!)}/results?_page_size=250`;
      for (let page = 0; path && page < MAX_FOOTPRINT_PAGES; page++) {
        if (signal?.aborted) throw cancelled();
        const r: { features?: unknown[]; _links?: { _next?: string } } = await get(p, path, signal);
        features.push(...(r.features ?? []));
        const next = r._links?._next;
        // The next page is on the API's own host; anything else is not followed.
        path = next && next.startsWith(p.api.origin) ? next.slice(p.api.origin.length) : next?.startsWith('/') ? next : null;
      }
      await writeFile(file, JSON.stringify({ type: 'FeatureCollection', features }));
      return { contentType: 'application/geo+json', size: 0 };
    }
    const result = /^orders\/([\w-]+)\/(.+)$/.exec(key);
    if (!result) throw badInput(`${key} is not an object of this Planet connection`);
    if (p.orderId && p.orderId !== result[1]) throw badInput(`${key} is outside this connection's order ${p.orderId}`);
    const o = await get<Order>(p, `/compute/ops/orders/v2/${encodeURIComponent(result[1]!)}`);
    const r = o._links?.results?.find((x) => fileName(o.id, x.name) === result[2]);
    if (!r) throw badInput(`The order ${o.id} has no result ${result[2]}`);
    // The location is Planet's (a signed download link): reached under the same network rule.
    const location = new URL(r.location, p.api.origin);
    const files = await clientFor(location.origin, target);
    const got = await files.request<number>({ path: `${location.pathname}${location.search}`, signal, toFile: file });
    if (got.status < 200 || got.status >= 300) throw new StudioError(422, `Planet's download of ${result[2]} answered ${got.status}`);
    return { contentType: contentTypeOfKey(result[2]!, undefined), size: got.body };
  },
};
