import type { Services } from '../services';
import type { Caller } from '../http/caller';
import { ensureSampleDatasets, placesSample, SAMPLE_DATASETS, type SampleSource } from './datasets';
import { sampleMaps, SAMPLE_MAP_KEYS } from './maps';
import { sampleDashboards } from './dashboards';
import { sampleWorkbooks } from './workbooks';
import { ensureSampleRecords, sampleDatasetIds, sampleRecordIds } from './records';

/**
 * Everything a new installation shows (STUDIO_SAMPLES=off: nothing): the sample datasets, the foot-traffic
 * places as a dataset once the analytic sets' panel is there (`placesFile`), then the maps, the dashboard
 * (its map widget needs the cities map first) and the workbook. Each run adds only what is missing, so an
 * existing installation gets new samples at its next start.
 */
export async function ensureSamples(services: Services, owner: Caller, opts: { placesFile?: string | null; log?: (line: string) => void; datasets?: SampleSource[] } = {}): Promise<number> {
  const log = opts.log ?? (() => {});
  let made = await ensureSampleDatasets(services, owner, log, opts.datasets ?? SAMPLE_DATASETS);
  if (opts.placesFile) made += await ensureSampleDatasets(services, owner, log, [placesSample(opts.placesFile)]);
  const datasets = await sampleDatasetIds(services);
  made += await ensureSampleRecords(services, owner, await sampleMaps(datasets), log);
  const records = await sampleRecordIds(services);
  made += await ensureSampleRecords(services, owner, [...sampleDashboards(datasets, records, SAMPLE_MAP_KEYS.cities), ...sampleWorkbooks(datasets)], log);
  return made;
}
