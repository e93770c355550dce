import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { bestEffort, reportFailuresTo } from '@studio/schema';
import { removeQuietly } from '../../engine/src/store';
import { every } from '../src/services/every';

/**
 * Clean-ups, cancels, heartbeats and sweeps fail without failing what they belong to, and an operator still
 * finds each failure in the log with what was being done (the server sends these reports to its logger).
 */
let reports: [string, string][];
beforeEach(() => {
  reports = [];
  reportFailuresTo((what, e) => reports.push([what, e instanceof Error ? e.message : String(e)]));
});
afterEach(() => reportFailuresTo((what, e) => console.warn(`${what} failed:`, e)));

describe('bestEffort', () => {
  it.each([
    ['a rejected promise', () => Promise.reject(new Error('disk full')), [['Removing x', 'disk full']]],
    ['a function that throws before its promise', () => () => { throw new Error('no handle'); }, [['Removing x', 'no handle']]],
    ['work that succeeds', () => Promise.resolve(42), []],
  ] as const)('%s: answers nothing, throws nothing, reports what failed', async (_label, make, expected) => {
    await expect(bestEffort(make() as Promise<unknown>, 'Removing x')).resolves.toBeUndefined();
    expect(reports).toEqual(expected);
  });

  it('reports a background sweep that fails, by name, at each round, and keeps running', async () => {
    vi.useFakeTimers();
    try {
      let rounds = 0;
      const stop = every(1000, async () => {
        rounds++;
        throw new Error('catalog unreachable');
      }, 'Sweeping stale ingestions');
      await vi.advanceTimersByTimeAsync(2500);
      stop();
      expect(rounds).toBe(2);
      expect(reports).toEqual([['Sweeping stale ingestions', 'catalog unreachable'], ['Sweeping stale ingestions', 'catalog unreachable']]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('removes a file quietly when it is already gone, and reports one it cannot remove', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'studio-quiet-'));
    try {
      await removeQuietly(path.join(dir, 'never-written.parquet'));
      expect(reports).toEqual([]);
      // A folder is not removed by unlink: the reason reaches the log.
      await removeQuietly(dir);
      expect(reports).toHaveLength(1);
      expect(reports[0]![0]).toBe(`Removing ${dir}`);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
