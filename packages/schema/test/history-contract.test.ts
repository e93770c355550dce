import { describe, expect, it } from 'vitest';
import { HistoryRetention, parseIfMatchVersion, VersionSummary } from '../src/history';

describe('history contract', () => {
  it.each([
    ['"12"', 12],
    ['12', 12],
    ['W/"3"', 3],
    ['"0"', undefined],
    ['*', undefined],
    ['"abc"', undefined],
    [undefined, undefined],
  ])('If-Match %s names version %s', (header, n) => expect(parseIfMatchVersion(header)).toBe(n));

  it('a summary needs a known source', () => {
    const base = { n: 1, createdAt: '2026-12-02T00:00:00.000Z', createdBy: null, message: null, schemaVersion: 1, restoredFrom: null, pins: [] };
    expect(VersionSummary.safeParse({ ...base, source: 'builder' }).success).toBe(true);
    expect(VersionSummary.safeParse({ ...base, source: 'email' }).success).toBe(false);
  });

  it('retention defaults to 30 days of all, a year of dailies', () => {
    expect(HistoryRetention.parse({})).toEqual({ keepAllDays: 30, dailyForDays: 365, snapshotDays: 30 });
    expect(HistoryRetention.safeParse({ keepAllDays: 40, dailyForDays: 10 }).success).toBe(false);
  });
});
