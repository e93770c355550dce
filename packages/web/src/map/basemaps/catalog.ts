import { DEFAULT_LAYER_GROUPS } from '@kepler.gl/constants';
import { client } from '../../app/api';
import { paletteToKepler, setStudioPalettes, type StudioPalette } from './palettes';

/** The basemap the SQL workspace's result map uses. */
export const DEFAULT_BASEMAP = 'light';
/** The basemap a new map opens on until its user picks another: the one with place names, so a map can be read. */
export const NEW_MAP_BASEMAP = 'labelled';

type StyleJson = { layers?: { id: string; type?: string; paint?: Record<string, unknown> }[] } & Record<string, unknown>;

/** One entry of kepler's `mapStyle.mapStyles`, with the style object already loaded (kepler fetches nothing). */
export interface KeplerMapStyle {
  id: string;
  label: string;
  url: string;
  icon: string;
  style: StyleJson;
  layerGroups: unknown[];
}

interface BasemapList {
  items: { id: string; label: string; styleUrl: string }[];
}

/** The colors a style paints its background and land with, for the picker's swatch. */
function styleColors(style: StyleJson): [string, string] {
  const color = (id: RegExp, prop: string) => style.layers?.find((l) => id.test(l.id))?.paint?.[prop];
  const bg = color(/^(background|bg)$/, 'background-color');
  const land = color(/land/, 'fill-color');
  return [typeof bg === 'string' ? bg : '#e6e6e6', typeof land === 'string' ? land : typeof bg === 'string' ? bg : '#cccccc'];
}

/** A swatch as a data URL: kepler's picker wants an image, and a data URL leaves no request. */
export function swatch(style: StyleJson): string {
  const [bg, land] = styleColors(style);
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><rect width="64" height="64" fill="${bg}"/><path d="M8 40 Q20 16 36 26 T60 20 L60 56 L12 56 Z" fill="${land}"/></svg>`;
  return `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
}

/**
 * kepler's layer groups (land, border, water…) that match the style's layer ids, for its layer toggles.
 * kepler hides borders by default; on these basemaps the borders are most of the drawing, so they show.
 */
const layerGroupsOf = (style: StyleJson) =>
  DEFAULT_LAYER_GROUPS.filter((g) => (style.layers ?? []).some((l) => g.filter(l as never))).map((g) => (g.slug === 'border' ? { ...g, defaultVisibility: true } : g));

export function toKeplerStyle(id: string, label: string, style: StyleJson): KeplerMapStyle {
  return { id, label, url: '', icon: swatch(style), style, layerGroups: layerGroupsOf(style) };
}

async function getJson<T>(url: string): Promise<T> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url}: ${res.status}`);
  return (await res.json()) as T;
}

/** The studio's built-in basemaps (public: the anonymous published view uses them too). */
export async function loadBuiltInBasemaps(): Promise<Record<string, KeplerMapStyle>> {
  const list = await getJson<BasemapList>('/v1/basemaps');
  const styles = await Promise.all(list.items.map(async (b) => toKeplerStyle(b.id, b.label, await getJson<StyleJson>(b.styleUrl))));
  return Object.fromEntries(styles.map((s) => [s.id, s]));
}

/**
 * The caller's map styles that carry a style document (saved in the asset or uploaded as its file),
 * keyed `asset:{id}`. Styles with only an external URL are left out: the token that URL needs stays on
 * the server, and the builder loads nothing from another host on its own.
 */
async function loadStyleAssets(): Promise<Record<string, KeplerMapStyle>> {
  const page = await client.mapAssets.list('map-style', { limit: 100 });
  const styles = await Promise.all(
    page.items.map(async (a) => {
      const style = (await client.mapAssets.styleOf(a)) as StyleJson | null;
      return style && Array.isArray(style.layers) ? [toKeplerStyle(`asset:${a.id}`, a.name, style)] : [];
    }),
  );
  return Object.fromEntries(styles.flat().map((s) => [s.id, s]));
}

async function loadPaletteAssets(): Promise<void> {
  const page = await client.mapAssets.list('color-palette', { limit: 100 });
  setStudioPalettes(page.items.flatMap((a) => (a.palette ? [paletteToKepler(a.name, a.palette)] : [])));
}

export interface MapLook {
  mapStyles: Record<string, KeplerMapStyle>;
  styleType: string;
}

/**
 * Everything the map's look offers: built-in basemaps, and for a signed-in caller their style and palette
 * assets, opening on `preferred` (the user's last choice) when it is among them. A part that fails to load is left out (the map still opens on the local blank style).
 */
export async function loadMapLook(opts: { assets: boolean; preferred?: string | null }): Promise<MapLook | null> {
  const [builtIn, assets] = await Promise.all([
    loadBuiltInBasemaps().catch(() => null),
    opts.assets ? Promise.all([loadStyleAssets(), loadPaletteAssets()]).then(([s]) => s).catch(() => ({})) : Promise.resolve({}),
  ]);
  if (!builtIn) return Object.keys(assets).length ? { mapStyles: assets, styleType: '' } : null;
  const mapStyles = { ...builtIn, ...assets };
  const styleType = [opts.preferred, NEW_MAP_BASEMAP].find((id): id is string => Boolean(id && id in mapStyles)) ?? Object.keys(builtIn)[0]!;
  return { mapStyles, styleType };
}
