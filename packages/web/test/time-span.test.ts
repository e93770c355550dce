import { describe, expect, it } from 'vitest';
import { applyMiddleware, combineReducers, createStore, type Store } from 'redux';
import { addDataToMap, registerEntry, setFilter } from '@kepler.gl/actions';
import { enhanceReduxMiddleware, keplerGlReducer } from '@kepler.gl/reducers';
import { parseMapState } from '@studio/schema';
import { END_FIELD, installTimeSpans, type GpuFilter } from '../src/map/time-span/gpu-span';
import { applyTimeEnds, timeEndsToSave } from '../src/map/time-span/saved-ends';
import { wrapKeplerConfig } from '../src/map/state/versions';

/**
 * Features that last during the playback (kepler.gl #3198): kepler's own reducer filters a dataset with a time filter,
 * and the rows its GPU filter lets through (every channel's value inside its range, as deck's DataFilterExtension
 * tests them) are worked out here from the dataset's gpuFilter.
 */
installTimeSpans();
const day = (d: number) => Date.UTC(2024, 0, d);
// Lasts the 1st to the 10th; the 1st to the 2nd; the 20th to the 21st; starts on the 3rd with no end (still going).
const ROWS = [
  ['long', 37.75, -122.45, '2024-01-01 00:00:00', '2024-01-10 00:00:00'],
  ['short', 37.75, -122.35, '2024-01-01 00:00:00', '2024-01-02 00:00:00'],
  ['late', 37.76, -122.4, '2024-01-20 00:00:00', '2024-01-21 00:00:00'],
  ['open', 37.74, -122.4, '2024-01-03 00:00:00', null],
];
const FIELDS = [
  { name: 'name', type: 'string' },
  { name: 'lat', type: 'real' },
  { name: 'lng', type: 'real' },
  { name: 'starts_at', type: 'timestamp', format: 'YYYY-M-D H:m:s' },
  { name: 'ends_at', type: 'timestamp', format: 'YYYY-M-D H:m:s' },
];

type Vis = { filters: { id: string; [END_FIELD]?: unknown }[]; datasets: Record<string, { gpuFilter: GpuFilter; dataContainer: unknown }> };
const vis = (store: Store) => (store.getState() as { keplerGl: { map: { visState: Vis } } }).keplerGl.map.visState;

/** A kepler store with the rows and a time filter over `window`, once kepler has made the dataset (its data tasks are async). */
async function mapWithWindow(window: [number, number]): Promise<Store> {
  const store = createStore(combineReducers({ keplerGl: keplerGlReducer }), {}, applyMiddleware(...enhanceReduxMiddleware([])));
  store.dispatch(registerEntry({ id: 'map' }));
  const layer = { id: 'pts', type: 'point', config: { dataId: 'trips', label: 'Trips', columns: { lat: 'lat', lng: 'lng' }, isVisible: true } };
  const filter = { dataId: ['trips'], id: 'when', name: ['starts_at'], type: 'timeRange', value: window };
  store.dispatch(
    addDataToMap({
      datasets: { info: { id: 'trips', label: 'Trips' }, data: { fields: FIELDS, rows: ROWS } },
      options: { autoCreateLayers: false, centerMap: false },
      config: { version: 'v1', config: { visState: { layers: [layer], filters: [filter] } } },
    } as never),
  );
  const ready = () => Boolean(vis(store).datasets.trips && vis(store).filters.length);
  if (!ready()) await new Promise<void>((resolve) => {
    const stop = store.subscribe(() => ready() && (stop(), resolve()));
  });
  return store;
}

/** The names of the rows the GPU filter draws. */
function drawn(store: Store): string[] {
  const { gpuFilter, dataContainer } = vis(store).datasets.trips!;
  const value = gpuFilter.filterValueAccessor(dataContainer)();
  return ROWS.filter((_, index) => {
    const v = value({ index }) as number[];
    return gpuFilter.filterRange.every(([lo, hi], c) => v[c]! >= lo! && v[c]! <= hi!);
  }).map((r) => r[0] as string);
}

describe('a time filter with an end time (features shown while they last)', () => {
  it('draws by the start alone without an end field, as kepler does', async () => {
    expect(drawn(await mapWithWindow([day(5), day(6)]))).toEqual([]);
    expect(drawn(await mapWithWindow([day(1), day(2)]))).toEqual(['long', 'short']);
  });

  it.each([
    ['inside one interval, after every start window', [day(5), day(6)], ['long', 'open']],
    ['at the starts', [day(1), day(1) + 3_600_000], ['long', 'short']],
    ['after the long one ended, before the late one', [day(12), day(13)], ['open']],
    ['over the late one', [day(19), day(20)], ['late', 'open']],
    ['after the short one ended, before the open one started', [day(2) + 3_600_000, day(2) + 7_200_000], ['long']],
  ] as const)('draws what overlaps the window %s', async (_when, window, names) => {
    const store = await mapWithWindow([...window]);
    store.dispatch(setFilter(0, END_FIELD, ['ends_at']));
    expect(drawn(store)).toEqual(names);
  });

  it('keeps the end channel’s update trigger while only the window moves (deck re-reads the rows only on a new one)', async () => {
    const store = await mapWithWindow([day(5), day(6)]);
    store.dispatch(setFilter(0, END_FIELD, ['ends_at']));
    const before = vis(store).datasets.trips!.gpuFilter.filterValueUpdateTriggers;
    store.dispatch(setFilter(0, 'value', [day(6), day(7)]));
    const after = vis(store).datasets.trips!.gpuFilter.filterValueUpdateTriggers;
    const key = Object.keys(after).find((k) => after[k]?.name.includes('ends_at'))!;
    expect(after[key]).toBe(before[key]);
    expect(drawn(store)).toEqual(['long', 'open']);
  });

  it('goes back to the start alone when the end field is cleared, and ignores a field that is not a timestamp', async () => {
    const store = await mapWithWindow([day(5), day(6)]);
    store.dispatch(setFilter(0, END_FIELD, ['ends_at']));
    store.dispatch(setFilter(0, END_FIELD, [null]));
    expect(drawn(store)).toEqual([]);
    store.dispatch(setFilter(0, END_FIELD, ['name']));
    expect(drawn(store)).toEqual([]);
  });

  it('saves the end fields in the studio’s map state, which validates them, and puts them back on the filters', async () => {
    const store = await mapWithWindow([day(5), day(6)]);
    store.dispatch(setFilter(0, END_FIELD, ['ends_at']));
    const ends = timeEndsToSave(store);
    expect(ends).toEqual({ when: { trips: 'ends_at' } });
    const saved = parseMapState(JSON.parse(JSON.stringify(wrapKeplerConfig({ version: 'v1', config: {} }, {}, { timeEnds: ends }))));
    expect(saved.timeEnds).toEqual(ends);
    expect(wrapKeplerConfig({ version: 'v1', config: {} })).not.toHaveProperty('timeEnds');
    expect(() => parseMapState({ studioVersion: 1, kepler: { version: 'v1', config: {} }, timeEnds: { when: { trips: '' } } })).toThrow(/end-time field needs a name/);
    expect(() => parseMapState({ studioVersion: 1, kepler: { version: 'v1', config: {} }, timeEnds: { when: 'ends_at' } })).toThrow();

    const reopened = await mapWithWindow([day(5), day(6)]);
    expect(drawn(reopened)).toEqual([]);
    applyTimeEnds(reopened, { ...saved.timeEnds, gone: { trips: 'ends_at' } });
    expect(vis(reopened).filters[0]![END_FIELD]).toEqual(['ends_at']);
    expect(drawn(reopened)).toEqual(['long', 'open']);
  });
});
