import { z } from 'zod';
import { Consent, LegalAgreement, LegalAgreementId, LegalVersionBody } from '../identity';
import { contract } from './contract';

const IdParam = z.object({ id: LegalAgreementId });
const AgreementItem = z.object({ item: LegalAgreement });
const ConsentItem = z.object({ item: Consent });

/** Legal agreements: the text a caller is bound by, their consent, those awaiting it, and new versions (administrators). */
export const legalCalls = {
  get: contract({
    spec: ['CAT-175'],
    method: 'GET',
    url: '/v1/legal/{id}',
    summary: "The agreement's text the caller is bound by: the newest version published for everyone or their organization, else the built-in one",
    tag: 'legal',
    auth: 'user',
    params: IdParam,
    response: AgreementItem,
  }),
  consentOf: contract({
    spec: ['CAT-176'],
    method: 'GET',
    url: '/v1/legal/latest/{id}/consent',
    summary: "The caller's consent to the latest version (consentedAt null when not given)",
    tag: 'legal',
    auth: 'user',
    params: IdParam,
    response: ConsentItem,
  }),
  consent: contract({ spec: ['CAT-177'], method: 'POST', url: '/v1/legal/{id}/consent', summary: 'Record consent to the latest version', tag: 'legal', auth: 'user', params: IdParam, response: ConsentItem }),
  pending: contract({
    method: 'GET',
    url: '/v1/legal/pending',
    summary: 'Agreements published by an administrator that the caller has not consented to: the web app shows them at sign-in',
    tag: 'legal',
    auth: 'user',
    response: z.object({ items: z.array(LegalAgreement) }),
  }),
  publish: contract({
    method: 'POST',
    url: '/v1/admin/legal/{id}',
    summary: "Publish a new version of an agreement, for everyone or one organization's members; each is asked to consent at their next sign-in",
    tag: 'admin',
    auth: 'admin',
    params: IdParam,
    body: LegalVersionBody,
    status: 201,
    response: z.object({ item: LegalAgreement.extend({ organizationId: z.string().nullable() }) }),
  }),
};
