import type { Middleware } from 'redux';
import { ActionTypes, isForwardAction } from '@kepler.gl/actions';

/**
 * The basemap a user last picked, remembered in this browser per user (the studio has no user-preferences
 * call; a style is a look, not data, so losing it with the browser's storage costs a click).
 */
const key = (userId: string) => `studio.basemap.${userId}`;

export function rememberedBasemap(userId: string): string | null {
  try {
    return window.localStorage.getItem(key(userId));
  } catch {
    return null; // storage disabled: the default style
  }
}

/**
 * Keeps the style the user picks in kepler's basemap picker (its MAP_STYLE_CHANGE action). A saved map
 * opening on its own style comes through the map's config instead, so opening someone's map changes nothing.
 */
export function rememberBasemapPicks(userId: string): Middleware {
  return () => (next) => (action) => {
    // kepler's components send their actions wrapped for the instance (the action itself as the payload).
    type StyleAction = { type?: string; payload?: { styleType?: unknown } };
    const a = action as StyleAction;
    const inner = isForwardAction(action as never) ? (a.payload as StyleAction) : a;
    const styleType = a.type === ActionTypes.MAP_STYLE_CHANGE ? inner.payload?.styleType : undefined;
    if (typeof styleType === 'string') {
      try {
        window.localStorage.setItem(key(userId), styleType);
      } catch {
        // storage full or disabled: nothing to keep
      }
    }
    return next(action);
  };
}
