import type { Db } from '../store/db';
import type { Caller } from '../http/caller';

/** Every write leaves one line: who, what, on which resource, when. */
export class AuditService {
  constructor(private readonly db: Db) {}

  async record(caller: Caller | null, action: string, resourceType: string, resourceId: string | null, details: unknown = {}): Promise<void> {
    await this.db
      .insertInto('audit_log')
      .values({
        actor_id: caller?.user.id ?? null,
        actor_email: caller?.user.email ?? null,
        action,
        resource_type: resourceType,
        resource_id: resourceId,
        details: JSON.stringify(details ?? {}),
      })
      .execute();
  }
}
