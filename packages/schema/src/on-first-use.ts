/**
 * A library that most processes never call — a warehouse's SDK, a reader of one file format, the mail
 * transport — is loaded the first time it is needed, not when the server starts: together they held about
 * 100 MB of a fresh server's memory (docs/decisions.md "Dataset data path performance", row "Libraries on first use").
 */

/**
 * `load` run once, on the first call; later calls share its answer. A failed load is not kept: the next call
 * tries again (a module that failed to load once, for instance on a busy disk, may load the next time).
 */
export function onFirstUse<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () =>
    (loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    }));
}
