// Video export (#50): a 10-second 1080p 30 fps WebM of the earthquakes sample's time playback, exported from
// the builder's "Export video" in the real app (kepler's off-screen export map moved frame by frame, WebCodecs
// VP9, mediabunny's WebM muxer), timed from the click to the download, against the video's own length
// (ratio 1.0: the export takes as long as the video lasts; software WebGL on a loaded 2-core machine is slower).
// Runs the built app on the real server as the browser tests start it (e2e/global-setup.ts). Standalone:
// `npx tsx packages/web/bench/video.bench.ts`; BENCH_VIDEO_SECONDS and BENCH_VIDEO_FPS change the video.
import os from 'node:os';
import { ADMIN } from '../e2e/global-setup';
import { openStudio, signInThroughUi } from '../e2e/browser';
import { withBenchStudio } from './bench-studio';

const SECONDS = Number(process.env.BENCH_VIDEO_SECONDS ?? 10);
const FPS = Number(process.env.BENCH_VIDEO_FPS ?? 30);
const loadLine = () => `${os.loadavg().map((l) => l.toFixed(2)).join(' ')} on ${os.cpus().length} cores`;

async function main() {
  await withBenchStudio(async ({ baseUrl, browser, admin }) => {
    // The samples are made in the background on a first start.
    let quakes: { id: string } | undefined;
    for (const until = Date.now() + 600_000; !quakes && Date.now() < until; await new Promise((r) => setTimeout(r, 2000))) {
      quakes = (await admin.records('maps').samples()).items.find((r) => r.name === 'Earthquakes of one week');
    }
    if (!quakes) throw new Error('The earthquakes sample map did not appear');

    const { page, context } = await openStudio(browser, baseUrl);
    await signInThroughUi(page, baseUrl, ADMIN.email, ADMIN.password);
    await page.goto(`${baseUrl}/${quakes.id}`);
    await page.waitForFunction(() => window.__studioMapReady === true, undefined, { timeout: 300_000 });
    await page.getByRole('button', { name: 'Export video' }).click();
    const dialog = page.getByRole('dialog', { name: 'Export video' });
    await dialog.getByLabel('Length (seconds)').fill(String(SECONDS));
    await dialog.getByLabel('Size').selectOption('1920 × 1080 (1080p)');
    await dialog.getByLabel('Frames per second').selectOption(String(FPS));
    const t0 = performance.now();
    const [download] = await Promise.all([page.waitForEvent('download', { timeout: 1_800_000 }), dialog.getByRole('button', { name: 'Export', exact: true }).click()]);
    await download.path();
    const ms = performance.now() - t0;
    console.log(`map.video_export ${SECONDS} s 1080p ${FPS} fps (${SECONDS * FPS} frames): ${(ms / 1000).toFixed(1)} s to render and encode (ratio ${(ms / (SECONDS * 1000)).toFixed(2)} vs the video's ${SECONDS} s; ${Math.round(ms / (SECONDS * FPS))} ms a frame; load ${loadLine()})`);
    await context.close();
  });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
