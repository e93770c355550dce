import type { z } from 'zod';
import { StudioError } from './errors';

export type StateUpgrade = (state: Record<string, unknown>) => Record<string, unknown>;

export const isStateObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Brings a stored state (a dashboard's, a workbook's) to `current` through `upgrades[n]` (n → n + 1) and
 * validates it with `schema`; 422 naming `what` on anything else. `versionOf` reads the stored version:
 * a number, or -1 for something that is no state of this kind at all.
 */
export function parseVersionedState<S extends z.ZodType>(
  stored: Record<string, unknown>,
  opts: { what: string; current: number; upgrades: Record<number, StateUpgrade>; schema: S; versionOf: (s: Record<string, unknown>) => number; unknownShape: string },
): z.infer<S> {
  let state = stored;
  let version = opts.versionOf(state);
  if (version < 0 || !Number.isInteger(version)) throw new StudioError(422, `Invalid ${opts.what} state: ${opts.unknownShape}`);
  if (version > opts.current) {
    throw new StudioError(422, `This ${opts.what} was saved by a newer studio (state version ${version}; this studio reads up to ${opts.current})`);
  }
  while (version < opts.current) {
    state = opts.upgrades[version]!(state);
    version = state.version as number;
  }
  const parsed = opts.schema.safeParse(state);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new StudioError(422, `Invalid ${opts.what} state: ${issue.path.join('.') || 'state'}: ${issue.message}`);
  }
  return parsed.data;
}
