import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { conflict, forbidden, notFound, type LockRequest, type ResourceType } from '@studio/schema';
import type { Database } from '../store/tables';
import type { Caller } from '../http/caller';
import type { RecordService, ResourceRow } from './records';

/** How long an answered request is kept for the asker's page to read its answer. */
const ANSWERED_KEPT_MS = 24 * 3600_000;

const LABELS: Partial<Record<ResourceType, string>> = { map: 'map', insight: 'dashboard', workbook: 'workbook' };
const labelOf = (row: ResourceRow) => LABELS[row.type as ResourceType] ?? 'record';

const liveHolder = (row: ResourceRow): string | null => (row.lock_owner_id && row.lock_expires_at && row.lock_expires_at.getTime() > Date.now() ? row.lock_owner_id : null);

/**
 * "Ask for edit" (#50): requests for a record's edit lock, in the catalog beside the locks (any node answers
 * the pages' polling). The holder grants one (the lock is handed to the asker, as
 * PUT /v1/locks/{type}/{id}/owner hands it) or declines it; the asker's page reads the answer.
 */
export class LockRequestService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly records: RecordService,
    /** Whether a user may edit the record now (a grant to someone whose role was taken away is refused). */
    private readonly mayEdit: (userId: string, row: ResourceRow) => Promise<boolean>,
  ) {}

  /** Asks the lock's holder for it; a second ask while the first waits is the first. */
  async ask(caller: Caller, row: ResourceRow): Promise<LockRequest> {
    const holder = liveHolder(row);
    if (!holder) throw conflict(`Nobody is editing this ${labelOf(row)}`, 'Open it again to edit');
    if (holder === caller.user.id) throw conflict(`You hold the edit lock of this ${labelOf(row)}`, 'Use "Edit here" to edit in this tab');
    await this.db.deleteFrom('lock_requests').where('resource_id', '=', row.id).where('status', '!=', 'pending').where('answered_at', '<', new Date(Date.now() - ANSWERED_KEPT_MS)).execute();
    await this.db
      .insertInto('lock_requests')
      .values({ id: randomUUID(), resource_id: row.id, requester_id: caller.user.id, status: 'pending' })
      .onConflict((oc) => oc.columns(['resource_id', 'requester_id']).where('status', '=', 'pending').doNothing())
      .execute();
    const mine = await this.query(row.id).where('q.requester_id', '=', caller.user.id).where('q.status', '=', 'pending').executeTakeFirstOrThrow();
    return toWire(mine);
  }

  /**
   * The holder sees the requests waiting for an answer; everyone their own recent ones with the answer (a
   * granted asker holds the lock by the time their page reads it).
   */
  async list(caller: Caller, row: ResourceRow): Promise<LockRequest[]> {
    const holds = liveHolder(row) === caller.user.id;
    const rows = await this.query(row.id)
      .where((eb) => (holds ? eb.or([eb('q.status', '=', 'pending'), eb('q.requester_id', '=', caller.user.id)]) : eb('q.requester_id', '=', caller.user.id)))
      .orderBy('q.created_at', 'desc')
      .limit(50)
      .execute();
    return rows.map(toWire);
  }

  /** The holder's answer: a grant hands the lock to the asker (who may still edit), a decline tells them no. */
  async answer(caller: Caller, row: ResourceRow, requestId: string, answer: 'grant' | 'decline'): Promise<LockRequest> {
    if (liveHolder(row) !== caller.user.id) throw forbidden(`Only the person editing this ${labelOf(row)} can answer`);
    const request = await this.query(row.id).where('q.id', '=', requestId).executeTakeFirst();
    if (!request) throw notFound('Request not found');
    if (request.status !== 'pending') throw conflict(`This request was ${request.status} already`);
    if (answer === 'grant') {
      if (!(await this.mayEdit(request.requester_id, row))) throw conflict(`${request.requester_name} can no longer edit this ${labelOf(row)}`);
      await this.records.setLockOwner(row, request.requester_id);
    }
    await this.db.updateTable('lock_requests').set({ status: answer === 'grant' ? 'granted' : 'declined', answered_at: new Date() }).where('id', '=', requestId).execute();
    return toWire((await this.query(row.id).where('q.id', '=', requestId).executeTakeFirstOrThrow()));
  }

  private query(resourceId: string) {
    return this.db
      .selectFrom('lock_requests as q')
      .innerJoin('users as u', 'u.id', 'q.requester_id')
      .select(['q.id', 'q.requester_id', 'q.status', 'q.created_at', 'q.answered_at', 'u.name as requester_name', 'u.email as requester_email'])
      .where('q.resource_id', '=', resourceId);
  }
}

type Row = { id: string; requester_id: string; status: LockRequest['status']; created_at: Date | string; answered_at: Date | null; requester_name: string; requester_email: string };

const iso = (d: Date | string) => new Date(d).toISOString();
const toWire = (r: Row): LockRequest => ({
  id: r.id,
  requester: { id: r.requester_id, name: r.requester_name, email: r.requester_email },
  status: r.status,
  createdAt: iso(r.created_at),
  answeredAt: r.answered_at ? iso(r.answered_at) : null,
});
