import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { ALL_FORMATS, BufferSource, EncodedPacketSink, Input } from 'mediabunny';
import { useBrowser, openStudio, signInThroughUi } from './browser';
import { asAdmin, baseUrl, makerInNewTeam } from './api';
import { waitMapReady } from './pixels';

const browser = useBrowser();
/** The earthquakes layer's yellow-to-red range (samples/maps.ts). */
const RANGE: [number, number, number][] = [[255, 195, 0], [241, 146, 14], [227, 97, 28], [199, 0, 57], [144, 12, 63], [90, 24, 70]];

/** Every video packet the file holds (one a frame), its track's size, and its duration, read by mediabunny's demuxer. */
async function webmFacts(bytes: Buffer) {
  const input = new Input({ source: new BufferSource(bytes), formats: ALL_FORMATS });
  const track = (await input.getPrimaryVideoTrack())!;
  let frames = 0;
  for await (const _ of new EncodedPacketSink(track).packets()) frames++;
  return { mime: await input.getMimeType(), width: track.displayWidth, height: track.displayHeight, frames, duration: await input.computeDuration() };
}

describe('exporting a map as a video', () => {
  it('downloads a 5-second WebM of the earthquakes’ time playback: every frame, its length and size, the week filling up', async () => {
    const admin = await asAdmin();
    await expect.poll(async () => (await admin.records('maps').samples()).items.map((r) => r.name), { timeout: 300_000, interval: 1000 }).toContain('Earthquakes of one week');
    const quakes = (await admin.records('maps').samples()).items.find((r) => r.name === 'Earthquakes of one week')!;
    const viewer = await makerInNewTeam('Video', 'Vida Viewer');

    const s = await openStudio(browser(), baseUrl());
    const { page } = s;
    page.on('pageerror', (e) => console.error('pageerror', e.message));
    await signInThroughUi(page, baseUrl(), viewer.email, viewer.password);
    await page.goto(`${baseUrl()}/${quakes.id}`);
    await waitMapReady(page, 90_000);

    await page.getByRole('button', { name: 'Export video' }).click();
    const dialog = page.getByRole('dialog', { name: 'Export video' });
    expect(await dialog.getByRole('radio', { name: 'Time playback' }).isChecked()).toBe(true);
    await dialog.getByLabel('Length (seconds)').fill('500');
    await dialog.getByRole('alert').filter({ hasText: '1 to 120 seconds' }).waitFor();
    await dialog.getByLabel('Length (seconds)').fill('5');
    await dialog.getByLabel('Size').selectOption('1280 × 720 (720p)');
    await dialog.getByLabel('Frames per second').selectOption('24');
    const [download] = await Promise.all([page.waitForEvent('download', { timeout: 300_000 }), dialog.getByRole('button', { name: 'Export', exact: true }).click()]);
    expect(download.suggestedFilename()).toBe('Earthquakes_of_one_week.webm');
    const bytes = await readFile((await download.path())!);

    // The file: 120 frames (5 s × 24), 1280 × 720, 5 s long to within a frame.
    const facts = await webmFacts(bytes);
    expect(facts).toMatchObject({ mime: expect.stringContaining('video/webm'), width: 1280, height: 720, frames: 120 });
    expect(Math.abs(facts.duration - 5)).toBeLessThanOrEqual(1 / 24);

    // The browser plays it: a <video> reports the same length and size, and its frames show the earthquakes as the
    // week's window grows: some in the first frame (the week's first 1/120), more half way, more again at the end.
    // Counted outside kepler's legend (bottom right), whose swatches have the same colours in every frame.
    // Played in a blank page: the studio's policy allows no media.
    const player = await s.context.newPage();
    const played = await player.evaluate(
      async ({ b64, range }) => {
        const video = document.createElement('video');
        video.muted = true;
        video.src = URL.createObjectURL(new Blob([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], { type: 'video/webm' }));
        await new Promise((ok, fail) => ((video.onloadeddata = ok), (video.onerror = () => fail(new Error('the video does not play')))));
        const canvas = document.createElement('canvas');
        const { videoWidth: width, videoHeight: height } = video;
        canvas.width = width;
        canvas.height = height;
        const ctx = canvas.getContext('2d', { willReadFrequently: true })!;
        const inLegend = (x: number, y: number) => x >= width - 160 && y >= height - 240;
        const quakesAt = async (t: number) => {
          video.currentTime = t;
          await new Promise((ok) => (video.onseeked = ok));
          ctx.drawImage(video, 0, 0);
          const { data } = ctx.getImageData(0, 0, width, height);
          let n = 0;
          for (let i = 0; i < data.length; i += 4) {
            if (inLegend((i / 4) % width, Math.floor(i / 4 / width))) continue;
            if (range.some((c) => Math.abs(data[i]! - c[0]!) + Math.abs(data[i + 1]! - c[1]!) + Math.abs(data[i + 2]! - c[2]!) < 60)) n++;
          }
          return n;
        };
        const first = await quakesAt(0);
        const middle = await quakesAt(video.duration / 2);
        const last = await quakesAt(video.duration - 0.05);
        return { duration: video.duration, width, height, first, middle, last };
      },
      { b64: bytes.toString('base64'), range: RANGE },
    );
    expect({ width: played.width, height: played.height }).toEqual({ width: 1280, height: 720 });
    expect(Math.abs(played.duration - 5)).toBeLessThanOrEqual(1 / 24);
    expect(played.first, 'earthquakes in the first frame').toBeGreaterThan(0);
    expect(played.middle, 'more earthquakes half way').toBeGreaterThan(played.first);
    expect(played.last, 'more earthquakes at the end').toBeGreaterThan(played.middle);
    expect(played.last, 'the week fills up').toBeGreaterThan(played.first * 5);
    expect(s.foreign).toEqual([]);
    await s.context.close();
  }, 600_000);
});
