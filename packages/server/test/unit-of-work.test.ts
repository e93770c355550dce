import { describe, expect, it } from 'vitest';
import { atomically } from '../src/store/unit-of-work';
import { STORES, useStudio } from './harness';

/** store/unit-of-work.ts: a request's writes commit together, on both catalogs. */
describe.each(STORES)('units of work on %s', (kind) => {
  const { ctx } = useStudio(kind);
  const units = () => ctx.s.services.units;
  const db = () => ctx.s.services.db;
  let n = 0;
  const key = () => `uow-${kind}-${++n}`;
  const put = (k: string) => db().insertInto('settings').values({ key: k, value: 'v' }).execute();
  const has = async (k: string) => Boolean(await db().selectFrom('settings').select('key').where('key', '=', k).executeTakeFirst());

  it('keeps every write of a unit that ends, and none of one that throws', async () => {
    const [kept, a, b] = [key(), key(), key()];
    await units().run(() => put(kept));
    await expect(
      units().run(async () => {
        await put(a);
        await put(b);
        throw new Error('the audit record failed');
      }),
    ).rejects.toThrow('the audit record failed');
    expect([await has(kept), await has(a), await has(b)]).toEqual([true, false, false]);
  });

  it("turns a service's own transaction inside a unit into a savepoint: its failure undoes only its writes", async () => {
    const [outer, inner, after] = [key(), key(), key()];
    await units().run(async () => {
      await put(outer);
      await db()
        .transaction()
        .execute(async (trx) => {
          await trx.insertInto('settings').values({ key: inner, value: 'v' }).execute();
          await trx.insertInto('settings').values({ key: outer, value: 'duplicate' }).execute();
        })
        .catch(() => undefined);
      await put(after);
    });
    expect([await has(outer), await has(inner), await has(after)]).toEqual([true, false, true]);
  });

  it('runs effects after the commit, and not at all after a rollback', async () => {
    const seen: string[] = [];
    const [kept, dropped] = [key(), key()];
    await units().run(async () => {
      await put(kept);
      await units().afterCommit(async () => void seen.push(`effect sees ${await has(kept)}`));
      seen.push('handler done');
    });
    await units()
      .run(async () => {
        await put(dropped);
        await units().afterCommit(async () => void seen.push('never'));
        throw new Error('rolled back');
      })
      .catch(() => undefined);
    expect(seen).toEqual(['handler done', 'effect sees true']);
  });

  it('sends work that outlives its unit (a timer started inside) to the pool, where it is kept', async () => {
    const late = key();
    let finished!: Promise<void>;
    await units().run(async () => {
      finished = new Promise<void>((resolve, reject) => setImmediate(() => void put(late).then(() => resolve(), reject)));
    });
    await finished;
    expect(await has(late)).toBe(true);
  });

  it('joins an outer unit, and atomically() uses the unit behind a service handle', async () => {
    const [a, b] = [key(), key()];
    await expect(
      units().run(async () => {
        await units().run(() => put(a));
        await atomically(db(), () => put(b));
        expect(units().active()).toBe(true);
        throw new Error('outer fails');
      }),
    ).rejects.toThrow('outer fails');
    expect([await has(a), await has(b), units().active()]).toEqual([false, false, false]);
  });

  it('resolves a handle derived before the unit (withTables in a constructor) to the unit', async () => {
    const kept = db().withTables<{ settings: { key: string; value: string } }>();
    const [inside, dropped] = [key(), key()];
    await units().run(() => kept.insertInto('settings').values({ key: inside, value: 'v' }).execute());
    await units()
      .run(async () => {
        await kept.insertInto('settings').values({ key: dropped, value: 'v' }).execute();
        throw new Error('rolled back');
      })
      .catch(() => undefined);
    expect([await has(inside), await has(dropped)]).toEqual([true, false]);
  });

  it('lets concurrent units and reads finish (no deadlock on one connection)', async () => {
    const keys = Array.from({ length: 8 }, key);
    const work = keys.map((k, i) =>
      i % 2 ? units().run(async () => { await put(k); await has(k); }) : has(k).then(() => units().run(() => put(k))),
    );
    await Promise.all(work);
    expect(await Promise.all(keys.map(has))).toEqual(keys.map(() => true));
  });
});
