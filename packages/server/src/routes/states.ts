import { STATE_COLLECTIONS, StateCreate, StateUpdate, StoredState, badInput, type StateCollection } from '@studio/schema';
import type { RouteDef } from '../http/route';
import { requireCaller } from '../http/route';
import { kindRoutes, type Kind } from '../http/kind-routes';

/** Spec rows of each collection: GET /{id}, POST, PUT /{id}, DELETE /{id}. */
const SPEC: Record<StateCollection, [string, string, string, string]> = {
  'insight-states': ['CAT-078', 'CAT-079', 'CAT-080', 'CAT-081'],
  studiostates: ['CAT-082', 'CAT-083', 'CAT-084', 'CAT-085'],
  'workbook-states': ['CAT-086', 'CAT-087', 'CAT-088', 'CAT-089'],
};

/**
 * Saved states: records of their own types whose owner is their creator. Access also follows the record
 * a state points to (services/access.ts), so whoever can read or write that record can read or write it.
 */
function stateKind(collection: StateCollection): Kind<typeof StateCreate, typeof StateUpdate> {
  const { type, recordType } = STATE_COLLECTIONS[collection];
  const [get, create, update, del] = SPEC[collection];
  return {
    type,
    base: `/v1/${collection}`,
    tag: 'states',
    spec: { get, create, update, del },
    create: StateCreate,
    update: StateUpdate,
    unparseable: 'Could not parse state',
    fields: (row) => {
      const s = StoredState.safeParse(row.attrs);
      return s.success ? { recordId: s.data.recordId ?? null, state: s.data.state ?? null } : null;
    },
    toAttrs: async (ctx, body) => {
      const recordId = 'recordId' in body ? body.recordId : undefined;
      // A state of a record the caller cannot read would leak through the state's own access.
      if (recordId) await ctx.services.access.guard(requireCaller(ctx), recordType, recordId, 'read', ctx.adminMode);
      if (body.state === undefined && !('recordId' in body)) return {};
      if (body.state !== undefined && JSON.stringify(body.state).length > 20_000_000) throw badInput('State is too large');
      return { ...(recordId !== undefined && { recordId }), ...(body.state !== undefined && { state: body.state }) };
    },
  };
}

export const stateRoutes: RouteDef[] = (Object.keys(STATE_COLLECTIONS) as StateCollection[]).flatMap((c) => kindRoutes(stateKind(c)));
