import { z } from 'zod';
import { Id, itemOf, itemsOf } from '../common';
import { ResourceType, Tag, TagCreate, TagUpdate } from '../records';
import { contract } from './contract';

const LinkParams = z.object({ tagId: Id, type: ResourceType, resourceId: Id });
const IdParams = z.object({ id: Id });

/** Tags (catalog §4): the caller's, their organizations', and links to resources. */
export const tagCalls = {
  list: contract({ spec: ['CAT-171'], method: 'GET', url: '/v1/tags', response: itemsOf(Tag), summary: "The caller's tags", tag: 'tags', auth: 'user' }),
  forOrganization: contract({
    spec: ['CAT-172'],
    method: 'GET',
    url: '/v1/tags/for-organization',
    response: itemsOf(Tag),
    summary: "Tags of the caller's organizations, optionally with links of one resource type only",
    tag: 'tags',
    auth: 'user',
    query: z.object({ resourceType: ResourceType.optional() }),
  }),
  create: contract({
    spec: ['CAT-098'],
    method: 'POST',
    url: '/v1/tags',
    response: itemOf(Tag),
    summary: 'Create a tag, optionally applying it to one resource',
    tag: 'tags',
    auth: 'user',
    body: TagCreate,
    status: 201,
  }),
  update: contract({ spec: ['CAT-173'], method: 'PUT', url: '/v1/tags/{id}', response: itemOf(Tag), summary: 'Rename or recolor a tag', tag: 'tags', auth: 'user', params: IdParams, body: TagUpdate }),
  delete: contract({ spec: ['CAT-174'], method: 'DELETE', url: '/v1/tags/{id}', summary: 'Delete a tag (and its links)', tag: 'tags', auth: 'user', params: IdParams, status: 204 }),
  apply: contract({
    spec: ['CAT-099'],
    method: 'POST',
    url: '/v1/tags/{tagId}/{type}/{resourceId}',
    response: itemOf(Tag),
    summary: 'Apply a tag to a resource the caller can read',
    tag: 'tags',
    auth: 'user',
    params: LinkParams,
  }),
  remove: contract({
    spec: ['CAT-100'],
    method: 'DELETE',
    url: '/v1/tags/{tagId}/{type}/{resourceId}',
    summary: 'Remove a tag from a resource',
    tag: 'tags',
    auth: 'user',
    params: LinkParams,
    status: 204,
  }),
};
