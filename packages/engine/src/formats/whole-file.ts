import { stat } from 'node:fs/promises';
import { StudioError } from '@studio/schema';

/**
 * Readers that cannot stream (zip archives, XML documents) hold the whole file in memory: they take files
 * up to this size and answer 413 past it, before reading.
 */
export const WHOLE_FILE_MAX_BYTES = 256 * 1024 * 1024;

export async function assertWholeFileSize(file: string, label: string): Promise<void> {
  const { size } = await stat(file);
  if (size > WHOLE_FILE_MAX_BYTES) throw new StudioError(413, `${label} files are read whole: at most ${WHOLE_FILE_MAX_BYTES / 2 ** 20} MB`);
}
