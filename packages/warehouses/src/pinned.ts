import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { Reach } from './driver';

/**
 * Sockets of the HTTP-based SDK clients (AWS, Snowflake) go to the address the network rule checked, for
 * HTTPS too: the clients keep their URLs (the Host header, request signing, TLS `servername` and the
 * certificate check stay on the host name) while the agent's DNS lookup answers the checked address. A
 * name the client goes on to (an S3 bucket's virtual host, a Snowflake result chunk's storage host) is
 * checked by the rule once, then kept: a second DNS answer never leads elsewhere.
 */

/** A host name and the address the network rule answered for it. */
export interface Pin {
  host: string;
  address: string;
}

/** Answers a lookup with one address, in the shape the caller asked for (`all` since Node's autoSelectFamily). */
export function answerLookup(address: string, options: { all?: boolean }, callback: Parameters<LookupFunction>[2]): void {
  const family = isIP(address);
  if (options.all) (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address, family }]);
  else callback(null, address, family);
}

/** One lookup per client: the pinned name answers its address; any other name (and port) is checked once, then kept. */
export function pinnedLookups(reach: Reach, pin: Pin): (port: number) => LookupFunction {
  const checked = new Map<string, Promise<string>>([[pin.host.toLowerCase(), Promise.resolve(pin.address)]]);
  return (port) => (hostname, options, callback) => {
    const name = hostname.toLowerCase();
    const key = name === pin.host.toLowerCase() ? name : `${name}:${port}`;
    if (!checked.has(key)) checked.set(key, reach.check(hostname, port));
    checked.get(key)!.then(
      (address) => answerLookup(address, options, callback),
      (e: Error) => callback(e as NodeJS.ErrnoException, '', 0),
    );
  };
}

type Creates = (options: http.ClientRequestArgs, callback: (err: Error | null, socket: unknown) => void) => unknown;

/** The agent with every socket it opens looked up through `lookups` (the agent's own TLS and pooling kept). */
export function pinAgent<A extends http.Agent>(agent: A, lookups: (port: number) => LookupFunction): A {
  const withCreate = agent as unknown as { createConnection: Creates };
  const create = withCreate.createConnection.bind(agent);
  withCreate.createConnection = (options, callback) => create({ ...options, lookup: lookups(Number(options.port)) }, callback);
  return agent;
}

/** An HTTP and an HTTPS agent for one client of a connection, both pinned. */
export function pinnedAgents(reach: Reach, pin: Pin, options: http.AgentOptions = {}): { httpAgent: http.Agent; httpsAgent: https.Agent } {
  const lookups = pinnedLookups(reach, pin);
  return {
    httpAgent: pinAgent(new http.Agent({ keepAlive: true, ...options }), lookups),
    httpsAgent: pinAgent(new https.Agent({ keepAlive: true, ...options }), lookups),
  };
}

/** A URL's host name as the network rule takes it (IPv6 without brackets) and its port. */
export function hostAndPort(url: URL): { host: string; port: number } {
  return { host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port || (url.protocol === 'https:' ? 443 : 80)) };
}
