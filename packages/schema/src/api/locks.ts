import { z } from 'zod';
import { Id, QueryBool, itemOf, itemsOf } from '../common';
import { LockRequest, LockRequestAnswer } from '../lock-requests';
import { LockOwnerBody, ResourceType, StudioRecord } from '../records';
import { contract } from './contract';

const tag = 'permissions';
const LockParams = z.object({ type: ResourceType, id: Id });
const AdminQuery = z.object({ isAdmin: QueryBool.optional() });
const onRecord = (action: 'read' | 'write') => ({ type: { param: 'type' }, param: 'id', action }) as const;

/** A record's edit lock: release, hand-over, and "ask for edit" (#50), polled by the holder's and the asker's pages. */
export const lockCalls = {
  release: contract({
    method: 'DELETE',
    url: '/v1/locks/{type}/{id}',
    summary: "Release the caller's edit lock on a record (a tab closing, an editor done); someone else's lock answers 409 naming them",
    tag,
    auth: 'user',
    params: LockParams,
    query: AdminQuery,
    resource: onRecord('read'),
    status: 204,
  }),
  handOver: contract({
    spec: ['CAT-130'],
    method: 'PUT',
    url: '/v1/locks/{type}/{id}/owner',
    summary: 'Hand the edit lock of a record to another user (who must be able to edit it)',
    tag,
    auth: 'user',
    params: LockParams,
    query: AdminQuery,
    body: LockOwnerBody,
    resource: onRecord('write'),
    response: itemOf(StudioRecord),
  }),
  ask: contract({
    method: 'POST',
    url: '/v1/locks/{type}/{id}/requests',
    summary: 'Ask the user editing a record for its edit lock (409 when nobody else holds it); a second ask while the first waits is the first',
    tag,
    auth: 'user',
    params: LockParams,
    query: AdminQuery,
    resource: onRecord('write'),
    status: 201,
    response: itemOf(LockRequest),
  }),
  requests: contract({
    method: 'GET',
    url: '/v1/locks/{type}/{id}/requests',
    summary: "The lock's holder: requests waiting for an answer; anyone else who may edit: their own recent requests and answers",
    tag,
    auth: 'user',
    params: LockParams,
    query: AdminQuery,
    resource: onRecord('write'),
    response: itemsOf(LockRequest),
  }),
  answer: contract({
    method: 'POST',
    url: '/v1/locks/{type}/{id}/requests/{requestId}/answer',
    summary: "The lock holder's answer to a request: grant hands the lock to the asker, decline tells them no (403 for anyone else)",
    tag,
    auth: 'user',
    params: LockParams.extend({ requestId: Id }),
    query: AdminQuery,
    body: LockRequestAnswer,
    resource: onRecord('write'),
    response: itemOf(LockRequest),
  }),
};
