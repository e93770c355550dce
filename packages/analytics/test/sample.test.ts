import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DuckDBConnection } from '@duckdb/node-api';
import { generateSamplePanel, labelsOf, runTemplate, validateBoundData, type SamplePanel } from '../src';
import { Reference, type RParams } from './reference';
import { diffRows, openDuck, readPanel, tempDir } from './helpers';

let conn: DuckDBConnection;
let close: () => void;
let tmp: ReturnType<typeof tempDir>;
let sample: SamplePanel;
let ref: Reference;
let market: string;
let chains: string[];

beforeAll(async () => {
  ({ conn, close } = await openDuck());
  tmp = tempDir();
  sample = await generateSamplePanel({ dir: join(tmp.dir, 'a'), seed: 11, visits: 30_000, connection: conn });
  ref = new Reference(await readPanel(conn, sample.tables));
  // The busiest market area and its busiest chains, so the comparisons have substance.
  const top = await conn.runAndReadAll(`SELECT p.dma_id, p.chain_id, count(*) AS n FROM ${sample.tables.visits} v
    JOIN ${sample.tables.places} p USING (place_id) WHERE p.chain_id IS NOT NULL GROUP BY ALL ORDER BY n DESC, p.chain_id`);
  const rows = top.getRowObjectsJS() as { dma_id: string; chain_id: string }[];
  market = `dma:${rows[0]!.dma_id}`;
  chains = rows.filter((r) => `dma:${r.dma_id}` === market).slice(0, 4).map((r) => `chain:${r.chain_id}`);
}, 60_000);
afterAll(() => { close(); tmp.remove(); });

describe('sample panel', () => {
  it('is deterministic for a seed', async () => {
    const again = await generateSamplePanel({ dir: join(tmp.dir, 'b'), seed: 11, visits: 30_000 });
    for (const k of ['places', 'devices', 'visits'] as const) {
      // Byte for byte: same rows in the same order, so Parquet statistics and row groups match too.
      expect(createHash('sha256').update(readFileSync(again.files[k])).digest('hex'))
        .toBe(createHash('sha256').update(readFileSync(sample.files[k])).digest('hex'));
    }
    const other = await generateSamplePanel({ dir: join(tmp.dir, 'c'), seed: 12, visits: 2_000 });
    expect(other.counts.visits).toBeGreaterThan(1_800);
  }, 60_000);

  it('binds cleanly and has real market areas and chains', async () => {
    const summary = await validateBoundData(conn, sample.tables);
    expect(summary.visits).toBe(sample.counts.visits);
    expect(Math.abs(summary.visits - 30_000)).toBeLessThan(1_500);
    const labels = await labelsOf(conn, sample.tables);
    expect(Object.values(labels.geographies.labelValueMap)).toContain('Los Angeles market area');
    expect(labels.places.availableValues.some((v) => v.startsWith('chain:'))).toBe(true);
    expect(labels.places.labelValueMap['category:cafe']).toBe('Coffee Shop');
    expect(readFileSync(sample.files.visits).subarray(0, 4).toString()).toBe('PAR1');
  });

  const periods = {
    M: { periodType: 'MONTHLY', start: '2025-01', end: '2025-12' },
    Q: { periodType: 'QUARTERLY', start: '2024-Q3', end: '2025-Q4' },
    D: { periodType: 'DAILY', start: '2025-02-20', end: '2025-03-10' },
  } as const;
  it.each([
    ['indexed-foot-traffic', 'M', 'chains'], ['indexed-foot-traffic', 'D', 'chains'], ['change-in-visits', 'Q', 'chains'],
    ['change-in-visits', 'D', 'chains'], ['audience-age', 'M', 'chains'], ['audience-gender', 'Q', 'category'],
    ['cross-visitation', 'M', 'chains'], ['customer-journey', 'M', 'chain'], ['customer-journey', 'Q', 'category'],
    ['trends-indexed', 'D', 'chains'], ['trends-daypart', 'M', 'chains'], ['trends-dwell', 'Q', 'chains'],
    ['movement-pivot', 'M', 'chains'],
  ] as const)('%s (%s, %s) matches the reference', async (id, per, what) => {
    const places = what === 'chains' ? chains : what === 'chain' ? chains.slice(0, 1) : ['category:fast_food'];
    const p: RParams = {
      geographies: [market], places, period: { ...periods[per] },
      ...(id === 'movement-pivot' ? { gender: ['Female'], pivot: { rows: ['place', 'age'], columns: ['period'] } } : {}),
    };
    const rows = await runTemplate(conn, id, { parameters: p }, sample.tables);
    expect(rows.length).toBeGreaterThan(0);
    expect(diffRows(rows, ref.run(id, p))).toBe('');
  }, 60_000);
});
