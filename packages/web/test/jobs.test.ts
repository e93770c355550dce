import { describe, expect, it } from 'vitest';
import type { Job } from '@studio/schema';
import { jobStatusText, jobTitle } from '../src/jobs/jobText';
import { fieldNameOf } from '../src/datasets/HexTileDialog';

const job = (over: Partial<Job>): Job => ({
  id: 'j', kind: 'hex-tiles', resourceId: null, status: 'queued', percent: 0, rows: null, message: null, attempt: 0,
  createdAt: '2026-11-26T10:00:00Z', startedAt: null, finishedAt: null, ...over,
});

describe('what the Jobs panel says about a job', () => {
  it.each([
    ['queued', job({}), 'Queued'],
    ['running without rows', job({ status: 'running', percent: 45.7 }), 'Running: 45%'],
    ['running with rows', job({ status: 'running', percent: 10, rows: 1_000_000 }), 'Running: 10% (1,000,000 rows)'],
    ['a retry, running', job({ status: 'running', percent: 5, attempt: 1 }), 'Running: 5% (attempt 2)'],
    ['waiting for its retry', job({ status: 'queued', attempt: 1, message: 'Waiting for a retry: the node running it stopped' }), 'Waiting for a retry: the node running it stopped (attempt 2)'],
    ['done after a retry', job({ status: 'succeeded', percent: 100, attempt: 2 }), 'Done'],
    ['failed', job({ status: 'failed', message: 'The source dataset was deleted or replaced before the build ran' }), 'Failed: The source dataset was deleted or replaced before the build ran'],
    ['failed without a reason', job({ status: 'failed' }), 'Failed: unknown error'],
    ['cancelled by someone', job({ status: 'cancelled', message: 'Cancelled by Cal' }), 'Cancelled by Cal'],
    ['cancelled', job({ status: 'cancelled' }), 'Cancelled'],
  ])('%s', (_label, j, text) => {
    expect(jobStatusText(j)).toBe(text);
  });

  it('names the work', () => {
    expect(jobTitle(job({}))).toBe('Building hex tiles');
  });
});

describe('the hex-tile dialog', () => {
  it.each([
    ['amount', 'sum_amount'],
    ['Total Sales ($)', 'sum_Total_Sales_'],
    ['x'.repeat(80), `sum_${'x'.repeat(59)}`],
  ])('names the sum of %s as a field the server accepts', (column, name) => {
    expect(fieldNameOf(column)).toBe(name);
    expect(name).toMatch(/^[A-Za-z_][A-Za-z0-9_]{0,62}$/);
  });
});
