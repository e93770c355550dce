import { describe, expect, it } from 'vitest';
import { cameraAt, checkVideo, frameCount, overlayTime, playbackValue, type Camera } from '../src/map/export/video-plan';

const DAY = 86_400_000;
const week: [number, number] = [Date.UTC(2026, 10, 1), Date.UTC(2026, 10, 8)];

describe('the frames of an exported video', () => {
  it('keeps every frame: 5 s at 30 fps is 150 frames, and the form refuses lengths and rates out of range', () => {
    expect(frameCount(5, 30)).toBe(150);
    expect(frameCount(10, 24)).toBe(240);
    expect(checkVideo(5, 30)).toBeNull();
    expect(checkVideo(0.5, 30)).toMatch(/1 to 120 seconds/);
    expect(checkVideo(5, 90)).toMatch(/24 to 60 frames/);
    expect(checkVideo(5, 29.5)).toMatch(/24 to 60 frames/);
  });

  it('grows a window that covers the whole span (the earthquakes sample) from the start to the end', () => {
    const f = { domain: week, value: week, animationWindow: 'free' };
    const first = playbackValue(f, 0, 7);
    expect(first[0]).toBe(week[0]);
    expect(first[1]).toBe(week[0] + DAY); // one frame's share, never an empty window
    expect(playbackValue(f, 3, 7)).toEqual([week[0], week[0] + 3.5 * DAY]);
    expect(playbackValue(f, 6, 7)).toEqual(week);
  });

  it('slides a narrower free window at its width until it ends at the span’s end; an incremental one grows', () => {
    const free = { domain: week, value: [week[0] + 2 * DAY, week[0] + 3 * DAY] as [number, number], animationWindow: 'free' };
    expect(playbackValue(free, 0, 3)).toEqual([week[0], week[0] + DAY]);
    expect(playbackValue(free, 1, 3)).toEqual([week[0] + 3 * DAY, week[0] + 4 * DAY]);
    expect(playbackValue(free, 2, 3)).toEqual([week[1] - DAY, week[1]]);
    const grows = { ...free, animationWindow: 'incremental' };
    expect(playbackValue(grows, 2, 3)).toEqual(week);
  });

  it('moves the camera through its keyframes, eased, the short way round the antimeridian and the compass', () => {
    const a: Camera = { longitude: 170, latitude: 0, zoom: 2, pitch: 0, bearing: 170 };
    const b: Camera = { longitude: -170, latitude: 10, zoom: 4, pitch: 40, bearing: -170 };
    const c: Camera = { longitude: -150, latitude: 20, zoom: 6, pitch: 0, bearing: 0 };
    expect(cameraAt([a, b, c], 0, 5)).toEqual(a);
    expect(cameraAt([a, b, c], 2, 5)).toEqual(b);
    expect(cameraAt([a, b, c], 4, 5)).toEqual(c);
    const mid = cameraAt([a, b], 1, 3);
    expect(Math.abs(mid.longitude)).toBeCloseTo(180, 6); // across the antimeridian, not through Greenwich
    expect(Math.abs(mid.bearing)).toBeCloseTo(180, 6); // 170° to -170° through south, not round by north
    expect(mid.zoom).toBeCloseTo(3, 6);
    // Eased: a quarter of the way in time is less than a quarter of the way in zoom.
    expect(cameraAt([a, b], 1, 5).zoom).toBeLessThan(2.5);
    expect(() => cameraAt([], 0, 2)).toThrow(/at least one keyframe/);
  });

  it('stamps a frame with its time in UTC', () => {
    expect(overlayTime(Date.UTC(2026, 10, 24, 13, 5, 30))).toBe('2026-11-24 13:05 UTC');
  });
});
