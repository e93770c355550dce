import { open } from 'node:fs/promises';

/** The first `bytes` bytes of a file (fewer when the file is shorter): for magic numbers and format sniffing. */
export async function fileHead(file: string, bytes: number): Promise<Buffer> {
  const fh = await open(file, 'r');
  try {
    const buf = Buffer.alloc(bytes);
    const { bytesRead } = await fh.read(buf, 0, bytes, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}
