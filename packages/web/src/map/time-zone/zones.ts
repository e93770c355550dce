import { datetimeFormatter } from '@kepler.gl/utils';

/**
 * The time zone a map's times are read in: the viewer's, not the map's. The browser's zone by default, UTC or
 * any IANA zone the browser knows when chosen; the choice is kept in this browser per user (the studio has no
 * user-preferences call; losing it with the browser's storage costs one pick), as the basemap is (basemaps/remember.ts).
 */
export const UTC = 'UTC';

/** The browser's own zone (Intl's resolved option; UTC where the platform reports none). */
export function browserZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || UTC;
}

/** Every zone the chooser offers: UTC first, then the browser's IANA zones (Intl lists UTC under no name of its own). */
export function zoneChoices(): string[] {
  const all = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  return [UTC, ...all.filter((z) => z !== UTC)];
}

/** Whether the browser can format times in `zone` (a stored value may name a zone another browser knew). */
export function isKnownZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** Signed-out readers of a published map share the browser's one choice. */
const key = (userId: string | null) => `studio.timeZone.${userId ?? 'anonymous'}`;

export function rememberedZone(userId: string | null): string {
  try {
    const stored = window.localStorage.getItem(key(userId));
    if (stored && isKnownZone(stored)) return stored;
  } catch {
    // storage disabled: the browser's zone
  }
  return browserZone();
}

export function rememberZone(userId: string | null, zone: string): void {
  try {
    window.localStorage.setItem(key(userId), zone);
  } catch {
    // storage full or disabled: the choice lasts this page
  }
}

/**
 * How a timestamp reads in tooltips: the date, the time, and the zone's abbreviation (moment's `z`: "UTC", "PST",
 * "+0545" where the zone has no letters). kepler formats a field's `displayFormat` with moment in UTC; the studio's
 * tooltips (hover-info.tsx) and data table cells (data-table.tsx) format it in the viewer's zone instead.
 */
export const TIMESTAMP_FORMAT = 'YYYY-MM-DD HH:mm:ss z';

/**
 * A formatter of epoch milliseconds in `zone`, with kepler's own moment-timezone formatter (the one its time
 * filter and playback use with their `timezone`). A format written for UTC names it as a literal (`[UTC]`, the
 * studio's earlier default): that literal becomes the zone's abbreviation.
 */
export function zonedFormatter(zone: string, format: string | undefined): (ms: number) => string {
  const f = (format || TIMESTAMP_FORMAT).replace(/\[UTC\]/g, 'z');
  return datetimeFormatter(zone)(f);
}
