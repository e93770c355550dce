import { createRequire } from 'node:module';
import { isIP } from 'node:net';
import { StudioError } from '@studio/schema';
import type { DriverTarget } from './driver';
import { hostAndPort, type Pin } from './pinned';

/**
 * What the Google Cloud clients of a connection share: the service account key the user saved (JSON,
 * its client_email and private_key sign the requests: a self-signed JWT, no token exchange), the
 * project it names, and the endpoint (Google's, or a custom one) checked by the network rule, every
 * request sent to the checked address (HTTP and HTTPS alike).
 */

export interface ServiceAccount {
  client_email: string;
  private_key: string;
  project_id?: string;
}

export function serviceAccountOf(t: DriverTarget): ServiceAccount {
  // The key file as an object (serviceAccountKey, through the API) or as its text (privateKey, from the form).
  const given = t.credentials?.serviceAccountKey ?? t.credentials?.privateKey;
  if (!given) throw new StudioError(422, 'This connection needs a service account key (JSON)');
  let key: Partial<ServiceAccount>;
  try {
    key = (typeof given === 'string' ? JSON.parse(given) : given) as Partial<ServiceAccount>;
  } catch {
    throw new StudioError(422, 'The service account key is not JSON', 'Paste the key file Google Cloud gave you, as it is');
  }
  if (typeof key.client_email !== 'string' || typeof key.private_key !== 'string') throw new StudioError(422, 'The service account key has no client_email or private_key');
  return { client_email: key.client_email, private_key: key.private_key, project_id: key.project_id };
}

/** A request as Google's clients hand it to their request interceptors (@google-cloud/common's Service). */
interface GoogleRequest {
  uri?: string;
  url?: string;
  headers?: Record<string, string>;
}

export interface GoogleEndpoint {
  /** The custom endpoint the client is given; undefined for Google's own (checked all the same). */
  apiEndpoint?: string;
  /** For the client's `interceptors`: every request pinned to the checked address. */
  interceptor: { request: (reqOpts: GoogleRequest) => GoogleRequest };
}

/**
 * The client's endpoint, checked, and an interceptor that sends each request to the checked address. Google's
 * clients take no agent (teeny-request makes its own), so the URL names the address and the Host header the
 * name: Node's agent takes TLS `servername` (SNI, and the name the certificate is checked against) from the
 * Host header. The self-signed JWT is scoped, so its claims hold no URL. A request for any other host is refused.
 */
export async function googleEndpoint(t: DriverTarget, defaultHost: string, custom: string | undefined): Promise<GoogleEndpoint> {
  const url = new URL(custom ?? `https://${defaultHost}`);
  const { host, port } = hostAndPort(url);
  const pin: Pin = { host, address: await t.reach.check(host, port) };
  return {
    apiEndpoint: custom ? url.origin : undefined,
    interceptor: {
      request: (reqOpts) => {
        const target = new URL(reqOpts.uri ?? reqOpts.url ?? '');
        const to = hostAndPort(target);
        if (to.host.toLowerCase() !== pin.host.toLowerCase() || to.port !== port || target.protocol !== url.protocol) {
          throw new StudioError(422, `Could not connect: the client asked for ${target.host}, which is not this connection's endpoint ${url.host}`);
        }
        const name = target.host;
        target.hostname = isIP(pin.address) === 6 ? `[${pin.address}]` : pin.address;
        const headers = Object.fromEntries(Object.entries(reqOpts.headers ?? {}).filter(([k]) => k.toLowerCase() !== 'host'));
        return { ...reqOpts, ...(reqOpts.uri !== undefined ? { uri: target.href } : { url: target.href }), headers: { ...headers, Host: name } };
      },
    },
  };
}

/** A Google API error (or a network failure) as a 422 with Google's own words. */
export function googleError(e: unknown, prefix = ''): StudioError {
  if (e instanceof StudioError) return e;
  const err = e as { code?: number | string; message?: string; errors?: { message?: string }[] };
  if (typeof err.code === 'number') {
    if (err.code === 401 || err.code === 403) return new StudioError(422, `${prefix}Google refused the service account (${err.code}): ${err.message ?? ''}`.trim());
    return new StudioError(422, `${prefix}${err.message ?? `Google answered ${err.code}`}`);
  }
  if (typeof err.code === 'string' && /^E[A-Z]+/.test(err.code)) return new StudioError(422, `Could not connect: ${err.message ?? err.code}`);
  return new StudioError(422, `${prefix}${err.message ?? String(e)}`);
}

interface SelfSigningJwt {
  useJWTAccessWithScope?: boolean;
}

/**
 * A client that signs each request with a scoped JWT of its own (no exchange at Google's token endpoint),
 * made with the google-auth-library the given Google client package itself uses (its major version
 * differs between packages; an instance of another would not be recognised).
 */
export function selfSignedJwt(clientPackage: string, key: ServiceAccount, scopes: string[]): unknown {
  const fromPackage = createRequire(createRequire(import.meta.url).resolve(clientPackage));
  const { JWT } = fromPackage('google-auth-library') as { JWT: new (opts: { email: string; key: string; scopes: string[] }) => SelfSigningJwt };
  const jwt = new JWT({ email: key.client_email, key: key.private_key, scopes });
  jwt.useJWTAccessWithScope = true;
  return jwt;
}
