/**
 * Loads shared by key while they run: callers that ask for a key already loading wait for that load instead
 * of starting their own (single flight). A finished load, done or failed, is forgotten; keeping its answer
 * is the cache's business (ExpiringCache, TileCache).
 */
export class SharedLoads<V> {
  private readonly running = new Map<string, Promise<V>>();

  run(key: string, load: () => Promise<V>): Promise<V> {
    const running = this.running.get(key);
    if (running) return running;
    const started = load().finally(() => this.running.delete(key));
    this.running.set(key, started);
    return started;
  }
}
