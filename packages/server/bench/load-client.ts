// What every autocannon client of the benches shares.
import path from 'node:path';
import type autocannon from 'autocannon';

/**
 * `setupClient` for autocannon: its clients drop the answers' bodies instead of decoding them as text (see
 * discard-bodies.cjs for the figures). The path of a file, which autocannon `require`s, in its worker threads as in
 * the calling thread (lib/validate.js); its types name only the function form.
 */
export const discardBodies = path.join(import.meta.dirname, 'discard-bodies.cjs') as unknown as NonNullable<autocannon.Options['setupClient']>;
