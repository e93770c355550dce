import { LEGAL_AGREEMENTS, notFound, type LegalVersionBody } from '@studio/schema';
import type { Caller } from '../http/caller';
import type { Db } from '../store/db';

export type LegalAgreementId = (typeof LEGAL_AGREEMENTS)[number];

/** The studio's own texts: each agreement as it stands until an administrator publishes a version. */
export const LEGAL_TEXTS: Record<LegalAgreementId, { version: string; title: string; text: string }> = {
  'studio-tos': { version: '2026-01', title: 'Studio terms of use', text: 'You may use this studio to analyse data you have the right to use. Administrators of this installation set further rules for their organizations.' },
  'fsq-sample-data': { version: '2026-01', title: 'Sample data terms', text: 'Sample datasets are built from public data (Natural Earth, US Census, GeoNames) and are for evaluation and demonstration.' },
  'fsq-bi': { version: '2026-01', title: 'Analytic sets terms', text: 'Analytic sets show aggregated, weighted panel figures. Do not attempt to identify individual devices.' },
  'fsq-despp': { version: '2026-01', title: 'Data export and sharing policy', text: 'Exports of analytic results stay within your organization unless its administrator allows otherwise.' },
};

export interface AgreementText {
  id: LegalAgreementId;
  version: string;
  title: string;
  text: string;
  /** Published by an administrator (then asked for at sign-in until consented), or the built-in text. */
  published: boolean;
}

export interface ConsentState {
  agreementId: LegalAgreementId;
  version: string;
  consentedAt: string | null;
}

/**
 * Legal agreements (catalog §7): the text a user is bound by — the newest version published for everyone or
 * for one of their organizations, else the built-in one — and their consent to it, recorded per version.
 */
export class LegalService {
  constructor(private readonly db: Db) {}

  async latest(caller: Caller, id: LegalAgreementId): Promise<AgreementText> {
    const orgs = caller.memberships.map((m) => m.organization_id);
    const row = await this.db
      .selectFrom('legal_versions')
      .select(['version', 'title', 'body'])
      .where('agreement_id', '=', id)
      .where((eb) => (orgs.length ? eb.or([eb('organization_id', 'is', null), eb('organization_id', 'in', orgs)]) : eb('organization_id', 'is', null)))
      .orderBy('published_at', 'desc')
      .orderBy('version', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row ? { id, version: row.version, title: row.title, text: row.body, published: true } : { id, ...LEGAL_TEXTS[id], published: false };
  }

  async consentOf(caller: Caller, id: LegalAgreementId): Promise<ConsentState> {
    return this.consentTo(caller, id, (await this.latest(caller, id)).version);
  }

  private async consentTo(caller: Caller, id: LegalAgreementId, version: string): Promise<ConsentState> {
    const row = await this.db.selectFrom('legal_consents').select('consented_at').where('user_id', '=', caller.user.id).where('agreement_id', '=', id).where('version', '=', version).executeTakeFirst();
    return { agreementId: id, version, consentedAt: row ? new Date(row.consented_at).toISOString() : null };
  }

  /** Records consent to the version the caller is shown now. */
  async consent(caller: Caller, id: LegalAgreementId): Promise<ConsentState> {
    const { version } = await this.latest(caller, id);
    const row = await this.db
      .insertInto('legal_consents')
      .values({ user_id: caller.user.id, agreement_id: id, version })
      .onConflict((oc) => oc.columns(['user_id', 'agreement_id', 'version']).doUpdateSet({ version }))
      .returning('consented_at')
      .executeTakeFirstOrThrow();
    return { agreementId: id, version, consentedAt: new Date(row.consented_at).toISOString() };
  }

  /**
   * Published versions the caller has not consented to: shown at sign-in until they are. The built-in texts
   * are not asked for (an installation that wants consent publishes its own).
   */
  async pending(caller: Caller): Promise<AgreementText[]> {
    const out: AgreementText[] = [];
    for (const id of LEGAL_AGREEMENTS) {
      const latest = await this.latest(caller, id);
      // The version just read is the one consent is looked up for: one lookup of the latest version each, not two.
      if (latest.published && !(await this.consentTo(caller, id, latest.version)).consentedAt) out.push(latest);
    }
    return out;
  }

  /** A new version, named by its publication time; answers it. */
  async publish(caller: Caller, id: LegalAgreementId, body: LegalVersionBody): Promise<AgreementText & { organizationId: string | null }> {
    if (body.organizationId) {
      const org = await this.db.selectFrom('organizations').select('id').where('id', '=', body.organizationId).executeTakeFirst();
      if (!org) throw notFound('Organization not found');
    }
    const version = new Date().toISOString();
    await this.db.insertInto('legal_versions').values({ agreement_id: id, version, title: body.title, body: body.text, organization_id: body.organizationId, published_by: caller.user.id }).execute();
    return { id, version, title: body.title, text: body.text, published: true, organizationId: body.organizationId };
  }
}
