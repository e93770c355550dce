import type { Readiness as ReadyAnswer } from '@studio/schema';
import type { Services } from './index';

/** Each part's check, as GET /v1/ready's contract declares it (packages/schema/src/api/system.ts). */
export type Readiness = ReadyAnswer['checks'];
export type ReadinessCheck = Readiness['catalog'];

/** Whether the catalog, the data engine and Redis (when configured) answer a trivial request right now. */
export async function readiness(services: Pick<Services, 'catalog' | 'engine' | 'limits'>): Promise<Readiness> {
  // A check answers 'unreachable' rather than failing: /v1/ready names what is down instead of erring.
  const check = async (work: () => Promise<unknown>): Promise<ReadinessCheck> => {
    try {
      await work();
      return 'ok';
    } catch {
      return 'unreachable';
    }
  };
  const redis = services.limits.redis;
  return {
    catalog: await check(() => services.catalog.ping()),
    engine: await check(() => services.engine.query('SELECT 1')),
    redis: redis ? await check(() => redis.ping()) : 'not configured',
  };
}
