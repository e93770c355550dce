import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { allRoutes } from '../src/routes';

/** The contract's checklist (a copy of shared/spec/endpoints.tsv kept in docs/spec). */
const TSV = path.resolve(import.meta.dirname, '../../../docs/spec/endpoints.tsv');
const rows = fs
  .readFileSync(TSV, 'utf8')
  .trim()
  .split('\n')
  .slice(1)
  .map((line) => {
    const [id, method, route] = line.split('\t');
    return { id: id!, method: method!, path: route! };
  });
const byId = new Map(rows.map((r) => [r.id, r]));

describe('route table against the spec checklist', () => {
  it.each(allRoutes.filter((r) => r.spec?.length).flatMap((r) => r.spec!.map((id) => [id, r.method, r.url] as const)))(
    '%s is answered by %s %s, as the checklist says',
    (id, method, url) => {
      const row = byId.get(id);
      expect(row, `${id} is not a row of endpoints.tsv`).toBeDefined();
      if (!['UNKNOWN', 'ANY'].includes(row!.method)) expect(method).toBe(row!.method);
      // Path parameters may be named differently ({id} vs {mapId}); the shape must match.
      const shape = (p: string) => p.replace(/\{\w+\}/g, '{}');
      expect(shape(url)).toBe(shape(row!.path));
    },
  );

  it('claims each checklist row once (rows whose method the spec does not give may be answered by several)', () => {
    const claims = allRoutes.flatMap((r) => r.spec ?? []);
    const open = (id: string) => ['UNKNOWN', 'ANY'].includes(byId.get(id)?.method ?? '');
    expect(claims.filter((id, i) => claims.indexOf(id) !== i && !open(id))).toEqual([]);
  });
});
