import type http from 'node:http';
import type https from 'node:https';
import type { S3ClientConfig } from '@aws-sdk/client-s3';
import { StudioError } from '@studio/schema';
import type { DriverTarget } from './driver';
import { hostAndPort, pinnedAgents } from './pinned';

/**
 * What every AWS SDK client of a connection shares: the endpoint (the service's own for the region, or a
 * custom one: an S3-compatible store, a VPC endpoint) checked by the network rule like any warehouse host,
 * every socket going to the checked address (HTTP and HTTPS alike: the agents' lookup answers it, while
 * the URL, the signature and TLS keep the name: ./pinned.ts);
 * the connection's keys, never the server's own environment or instance role; one attempt; the timeouts.
 */

/** Requests of a connection without keys go unsigned (public buckets), never signed by the server's role. */
const unsigned: Extract<NonNullable<S3ClientConfig['signer']>, { sign: unknown }> = { sign: async (request) => request };

export interface AwsClientOptions {
  region: string;
  endpoint?: string;
  maxAttempts: number;
  requestHandler: { connectionTimeout: number; requestTimeout: number; httpAgent: http.Agent; httpsAgent: https.Agent };
  credentials: { accessKeyId: string; secretAccessKey: string };
  signer?: typeof unsigned;
}

export async function awsClientOptions(t: DriverTarget, service: string, region: string, customEndpoint: string | undefined, opts: { allowAnonymous: boolean }): Promise<AwsClientOptions> {
  const url = new URL(customEndpoint ?? `https://${service}.${region}.amazonaws.com`);
  const { host, port } = hostAndPort(url);
  const address = await t.reach.check(host, port);
  const endpoint = customEndpoint ? url.origin : undefined;
  const creds = t.credentials;
  const keys = creds?.accessKeyId && creds.secretAccessKey ? { accessKeyId: creds.accessKeyId, secretAccessKey: creds.secretAccessKey } : null;
  if (!keys && !opts.allowAnonymous) throw new StudioError(422, 'This connection needs an access key id and a secret access key');
  return {
    region,
    endpoint,
    maxAttempts: 1,
    // Agents of this client only (client.destroy() ends them), never the SDK's process-wide ones.
    requestHandler: { connectionTimeout: t.settings.connectTimeoutMs, requestTimeout: t.settings.statementTimeoutMs, ...pinnedAgents(t.reach, { host, address }) },
    ...(keys ? { credentials: keys } : { credentials: { accessKeyId: '', secretAccessKey: '' }, signer: unsigned }),
  };
}

/** An AWS service error (or a network failure) as a 422 with the service's own words. */
export function awsError(e: unknown, prefix = ''): StudioError {
  if (e instanceof StudioError) return e;
  const err = e as { name?: string; message?: string; code?: string; $metadata?: { httpStatusCode?: number } };
  // An answer of the service has an HTTP status; without one the request never got an answer.
  if (err.$metadata?.httpStatusCode) return new StudioError(422, `${prefix}${err.name ?? 'Error'}: ${err.message || err.$metadata.httpStatusCode}`);
  if (err.$metadata || err.code || err.name === 'TimeoutError') return new StudioError(422, `Could not connect: ${err.message || err.code}`);
  return new StudioError(422, `${prefix}${err.message ?? String(e)}`);
}
