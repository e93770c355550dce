/**
 * What each frame of an exported video shows, worked out before anything is drawn: the time filter's value
 * (time playback) or the camera (a path of keyframes) at frame i of n. Pure, so the frames are tested without a
 * browser and the video is the same however slowly its frames are drawn.
 */

export const VIDEO_SIZES = [
  { label: '1280 × 720 (720p)', width: 1280, height: 720 },
  { label: '1920 × 1080 (1080p)', width: 1920, height: 1080 },
] as const;
export const VIDEO_FPS = [24, 25, 30, 50, 60] as const;
export const VIDEO_LIMITS = { minSeconds: 1, maxSeconds: 120, minFps: 24, maxFps: 60 } as const;

export interface Camera {
  longitude: number;
  latitude: number;
  zoom: number;
  pitch: number;
  bearing: number;
}

/** A time filter as kepler keeps it: its whole span, the window shown now, and how the window plays. */
export interface TimeFilterWindow {
  domain: [number, number];
  value: [number, number];
  animationWindow: string;
}

/** Frames in a video of `seconds` at `fps`: every frame kept, so the file's duration is frames / fps. */
export const frameCount = (seconds: number, fps: number) => Math.max(1, Math.round(seconds * fps));

/** The form's input checked: a message that says what is wrong, or null. */
export function checkVideo(seconds: number, fps: number): string | null {
  if (!Number.isFinite(seconds) || seconds < VIDEO_LIMITS.minSeconds || seconds > VIDEO_LIMITS.maxSeconds) return `A video lasts ${VIDEO_LIMITS.minSeconds} to ${VIDEO_LIMITS.maxSeconds} seconds.`;
  if (!Number.isInteger(fps) || fps < VIDEO_LIMITS.minFps || fps > VIDEO_LIMITS.maxFps) return `The frame rate is ${VIDEO_LIMITS.minFps} to ${VIDEO_LIMITS.maxFps} frames per second.`;
  return null;
}

/** Progress through the video at frame i of n: 0 at the first frame, 1 at the last. */
const progress = (i: number, n: number) => (n <= 1 ? 1 : i / (n - 1));

/**
 * The time filter's value at frame i of n. A "free" window narrower than the span slides from the span's start
 * until it ends at the span's end, keeping its width, as kepler's playback moves it; an "incremental" window,
 * or a free one that already covers the whole span (the earthquakes sample opens so), grows from the span's
 * start to its end, so the video shows the features accumulate instead of a still frame.
 */
export function playbackValue(f: TimeFilterWindow, i: number, n: number): [number, number] {
  const [d0, d1] = f.domain;
  const p = progress(i, n);
  const width = Math.max(0, f.value[1] - f.value[0]);
  const grows = f.animationWindow === 'incremental' || width >= d1 - d0;
  if (grows) {
    const end = d0 + p * (d1 - d0);
    return [d0, Math.max(end, d0 + (d1 - d0) / n)];
  }
  const start = d0 + p * (d1 - d0 - width);
  return [start, start + width];
}

/** The shortest turn from angle a to b in degrees (a bearing of 350 to 10 turns 20 degrees, not 340). */
const turn = (a: number, b: number) => ((((b - a) % 360) + 540) % 360) - 180;

/**
 * The camera at frame i of n along keyframes spaced evenly in time, eased in and out at each keyframe so the
 * camera does not jolt: position and zoom linear between keyframes (zoom in log-scale already), longitude and
 * bearing the short way round.
 */
export function cameraAt(keys: readonly Camera[], i: number, n: number): Camera {
  if (!keys.length) throw new Error('A camera path needs at least one keyframe.');
  if (keys.length === 1) return { ...keys[0]! };
  const at = progress(i, n) * (keys.length - 1);
  const k = Math.min(keys.length - 2, Math.floor(at));
  const t = ease(at - k);
  const a = keys[k]!;
  const b = keys[k + 1]!;
  const mix = (x: number, y: number) => x + (y - x) * t;
  return {
    longitude: wrap(a.longitude + turn(a.longitude, b.longitude) * t),
    latitude: mix(a.latitude, b.latitude),
    zoom: mix(a.zoom, b.zoom),
    pitch: mix(a.pitch, b.pitch),
    bearing: wrap(a.bearing + turn(a.bearing, b.bearing) * t),
  };
}

const ease = (t: number) => t * t * (3 - 2 * t);
const wrap = (deg: number) => ((((deg + 180) % 360) + 360) % 360) - 180;

/** A time in UTC as the overlay shows it: "2026-11-24 13:05 UTC". */
export function overlayTime(ms: number): string {
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}
