import { ping, type Db } from '../store/db';
import { assertCanCreate, usageOf } from './quota';
import { applyShare, changeRole, grant, grantAll, permissionEntry, permissionsOf, revoke } from './sharing';
import { acceptInvitation, moveToOrganization, seatsOf, setScreeningStatuses, updateUser, userById, userToWire } from './users';
import { assertParent, refusedConnections } from './connections';
import { historyOf, keepVersion } from './templates';
import { latestVersion } from './history';
import { retentionSetting, setRetention, thinAllVersions } from './history-retention';

/** Any function of the catalog first (`never[]` accepts every parameter list; `Bound` reads the real one back). */
type CatalogFunction = (db: Db, ...args: never[]) => unknown;
/** The functions with the catalog given: what a route calls (routes never hold the catalog themselves). */
export type Bound<F extends Record<string, CatalogFunction>> = { [K in keyof F]: F[K] extends (db: Db, ...args: infer A) => infer R ? (...args: A) => R : never };

/**
 * Binds functions whose first parameter is the catalog to it. The catalog handed in is the unit of work's
 * (services/index.ts), so inside a write request each call runs in that request's transaction, as the
 * service classes built from the same value do.
 */
export function bindCatalog<F extends Record<string, CatalogFunction>>(db: Db, fns: F): Bound<F> {
  return Object.fromEntries(Object.entries(fns).map(([name, fn]) => [name, (...args: never[]) => fn(db, ...args)])) as Bound<F>;
}

/** The catalog calls the routes make that have no service class of their own, grouped by area. */
export function catalogCalls(db: Db) {
  return {
    /** Quota policies: what a caller may still create, and what they use. */
    quota: bindCatalog(db, { assertCanCreate, usageOf }),
    /** Shares of a resource (catalog §6): grant, change, revoke, and who it is shared with. */
    sharing: bindCatalog(db, { applyShare, changeRole, grant, grantAll, permissionEntry, permissionsOf, revoke }),
    /** Accounts: the wire form, seats, profile changes, organization moves, screening, invitations accepted. */
    users: bindCatalog(db, { acceptInvitation, moveToOrganization, seatsOf, setScreeningStatuses, updateUser, userById, userToWire }),
    /** Data connections' folders and the connections the network reach refuses. */
    connections: bindCatalog(db, { assertParent, refusedConnections }),
    /** Query templates' kept versions. */
    templates: bindCatalog(db, { historyOf, keepVersion }),
    /** Saved versions of maps, dashboards and workbooks (#51): the latest, and the retention administrators set. */
    versions: bindCatalog(db, { latestVersion, retentionSetting, setRetention, thinAllVersions }),
    /** The catalog answering at all (health checks). */
    catalog: { ping: () => ping(db) },
  };
}
export type CatalogCalls = ReturnType<typeof catalogCalls>;
