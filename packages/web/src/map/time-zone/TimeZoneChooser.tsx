import { createContext, useEffect, useMemo, useState, useSyncExternalStore } from 'react';
import type { Store } from 'redux';
import { UTC, browserZone, rememberZone, rememberedZone, zoneChoices } from './zones';
import { followTimeZone, hasTimestamps } from './follow';

/** The zone the map's tooltips read times in (the injected hover info, hover-info.tsx, reads it). */
export const TimeZoneContext = createContext<string>(UTC);

/**
 * The viewer's time zone for one map view: remembered per user (`userId` null: a signed-out reader), kept on
 * kepler's time filters and playback while the view is open.
 */
export function useTimeZone(store: Store | null, userId: string | null): [string, (zone: string) => void] {
  const [zone, setZone] = useState(() => rememberedZone(userId));
  // A published view learns who reads it after the first render (the session answers later).
  useEffect(() => setZone(rememberedZone(userId)), [userId]);
  useEffect(() => (store ? followTimeZone(store, zone) : undefined), [store, zone]);
  const choose = (z: string) => {
    rememberZone(userId, z);
    setZone(z);
  };
  return [zone, choose];
}

/**
 * "Time zone" in the map's toolbar, once the map holds a timestamp field: the zone shown, any IANA zone chosen.
 * `compact`: an embed's, which has no toolbar (its frame is the partner's page): a small select on the map's
 * corner, its label for screen readers only.
 */
export function TimeZoneChooser({ store, zone, onChange, compact = false }: { store: Store; zone: string; onChange: (zone: string) => void; compact?: boolean }) {
  const timed = useSyncExternalStore(store.subscribe, () => hasTimestamps(store));
  const choices = useMemo(() => {
    const all = zoneChoices();
    return all.includes(zone) ? all : [zone, ...all];
  }, [zone]);
  if (!timed) return null;
  const own = browserZone();
  return (
    <label className={compact ? 'map-time-zone map-time-zone-compact' : 'map-time-zone'}>
      <span className={compact ? 'visually-hidden' : undefined}>Time zone</span>
      <select value={zone} onChange={(e) => onChange(e.target.value)} title="Times in tooltips, filters and the playback are shown in this zone">
        {choices.map((z) => (
          <option key={z} value={z}>
            {z === own ? `${z} (this browser)` : z}
          </option>
        ))}
      </select>
    </label>
  );
}
