import { z } from 'zod';
import { ClientErrorReport, ClientFeedback } from '../client-errors';
import { contract } from './contract';

/** Error reports from the web app (gateway §7, the Sentry relays) and the administrators' page of those kept. */
export const clientErrorCalls = {
  tunnel: contract({
    spec: ['GTW-002'],
    method: 'POST',
    url: '/v1/sentry-tunnel',
    summary: "Relays the web app's error reports (a Sentry envelope) to the configured DSN, or keeps them for administrators",
    tag: 'gateway',
    auth: 'user',
    rawBody: true,
    response: z.object({}),
  }),
  feedback: contract({
    spec: ['GTW-003'],
    method: 'POST',
    url: '/v1/sentry-user-feedback',
    summary: "Relays a user's words about an error to the configured DSN, or keeps them for administrators",
    tag: 'gateway',
    auth: 'user',
    body: ClientFeedback,
    response: z.object({}),
  }),
  list: contract({
    method: 'GET',
    url: '/v1/admin/client-errors',
    summary: 'Error reports and feedback from the web app kept without a Sentry DSN (30 days), newest first',
    tag: 'admin',
    auth: 'admin',
    response: z.object({ items: z.array(ClientErrorReport) }),
  }),
};
