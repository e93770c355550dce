import { describe, expect, it } from 'vitest';
import { TEMP_VIEW_SQL_LIMIT, TEMP_VIEW_TTL_SECONDS, checkPipeline, sanitizeTableName, tempViewName } from '../src/index';

describe('temporary materialized views (catalog §9)', () => {
  it('constants', () => {
    expect(TEMP_VIEW_TTL_SECONDS).toBe(60);
    expect(TEMP_VIEW_SQL_LIMIT).toBe(100);
  });
  it('tempViewName is temp_ plus 6 of [a-z0-9], and varies', () => {
    const names = new Set(Array.from({ length: 200 }, tempViewName));
    for (const n of names) expect(n).toMatch(/^temp_[a-z0-9]{6}$/);
    expect(names.size).toBeGreaterThan(190);
  });
  it.each([
    ['my table-2024.csv', 'my_table_2024_csv'],
    ['ok_Name9', 'ok_Name9'],
    ['dé"; drop', 'd____drop'],
    ['', ''],
  ])('sanitizeTableName(%j) = %j', (input, out) => expect(sanitizeTableName(input)).toBe(out));
});

describe('checkPipeline edge cases', () => {
  it('refuses pipelines deeper than 64 with the path of the deepest node', () => {
    let node: unknown = { type: 'dataset', uuid: 'u' };
    for (let i = 0; i < 70; i++) node = { type: 'limit', length: 1, input: [node] };
    const r = checkPipeline(node);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.message).toBe('Pipeline is deeper than 64 nodes');
      expect(r.path).toBe(Array.from({ length: 65 }, () => 'input[0]').join('.'));
    }
  });
  it('treats a missing input list as empty', () => {
    expect(checkPipeline({ type: 'dataset', uuid: 'u' })).toMatchObject({ ok: true, node: { input: [] } });
  });
});
