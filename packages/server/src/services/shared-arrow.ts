import fs from 'node:fs/promises';
import { GrowingFile } from './growing-file';
import { joinRun } from './shared-runs';

/** Writes the Arrow IPC bytes of one run to `sink`; null when this run cannot be answered that way (nothing sent). */
export type ArrowProducer = (sink: (bytes: Uint8Array) => Promise<void>, signal: AbortSignal) => Promise<unknown>;

interface Entry {
  file: Promise<GrowingFile>;
  readers: number;
}

/**
 * Arrow answers of pushed-down queries being streamed, by what they depend on: identical requests at once
 * share one run on the warehouse and follow the same growing file from its first byte, each at its own
 * pace; the run is cancelled once every reader has gone (joinRun's grace included), and the file is
 * removed when its last reader is done.
 */
const streaming = new Map<string, Entry>();

export interface ArrowReader {
  /** True once the run sends bytes; false when the producer declined (answer another way); rejects with the run's error before any byte. */
  started: Promise<boolean>;
  /** The whole IPC stream as it is written; throws the run's failure where it happened. */
  read(): AsyncGenerator<Uint8Array>;
  /** Lets go of the shared answer (call once, whether the stream was read to its end or not). */
  release(): Promise<void>;
}

export async function readSharedArrow(key: string, newFile: () => Promise<string>, produce: ArrowProducer, signal: AbortSignal): Promise<ArrowReader> {
  const run = joinRun(`arrow:${key}`);
  const leave = () => run.leave();
  signal.addEventListener('abort', leave, { once: true });
  if (signal.aborted) run.leave();
  let entry = streaming.get(key);
  if (!entry) {
    const e: Entry = { readers: 0, file: newFile().then((p) => GrowingFile.create(p)) };
    streaming.set(key, e);
    void e.file.then(async (file) => {
      try {
        const answered = await produce((bytes) => file.append(bytes), run.signal);
        await file.finish();
        if (answered === null && streaming.get(key) === e) streaming.delete(key);
      } catch (err) {
        // A failed run is forgotten for the next caller; its readers see the failure.
        if (streaming.get(key) === e) streaming.delete(key);
        await file.fail(err);
      }
    }, () => {
      if (streaming.get(key) === e) streaming.delete(key);
    });
    entry = e;
  }
  entry.readers++;
  const e = entry;
  let file: GrowingFile;
  try {
    file = await e.file;
  } catch (err) {
    e.readers--;
    signal.removeEventListener('abort', leave);
    run.done();
    throw err;
  }
  let released = false;
  return {
    started: file.started,
    read: () => file.read(),
    release: async () => {
      if (released) return;
      released = true;
      signal.removeEventListener('abort', leave);
      // A reader whose client went away has already left (the listener); done() is then a no-op.
      run.done();
      if (--e.readers > 0) return;
      if (streaming.get(key) === e) streaming.delete(key);
      await fs.rm(file.path, { force: true });
    },
  };
}
