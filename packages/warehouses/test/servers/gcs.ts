import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { serviceAccountKey, signedBy } from './google-auth';

/**
 * Cloud Storage's JSON API for the calls @google-cloud/storage makes here (written from its reference):
 * objects.list (GET /storage/v1/b/{bucket}/o with prefix, delimiter, maxResults: items and prefixes),
 * objects.get (metadata, and ?alt=media for the bytes); errors as {error: {code, message}}. Requests must
 * carry a JWT signed by the test's service account.
 */

export interface GcsServer {
  endpoint: string;
  port: number;
  /** The key file the connection is given. */
  keyJson: string;
  close(): Promise<void>;
}

export async function startGcsServer(bucket: string, objects: Record<string, string>): Promise<GcsServer> {
  const key = serviceAccountKey('studio-test');
  const updated = '2024-06-01T12:00:00.000Z';
  const meta = (name: string) => ({ kind: 'storage#object', id: `${bucket}/${name}`, name, bucket, size: String(Buffer.byteLength(objects[name]!)), updated, contentType: name.endsWith('.csv') ? 'text/csv' : 'application/octet-stream' });
  const server = http.createServer((req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (!signedBy(req.headers.authorization, key.email, key.publicKey)) return send(401, { error: { code: 401, message: 'Invalid Credentials', errors: [{ reason: 'authError' }] } });
    const url = new URL(req.url ?? '/', 'http://x');
    const m = /^(?:\/download)?\/storage\/v1\/b\/([^/]+)\/o(?:\/(.+))?$/.exec(url.pathname);
    if (!m) return send(404, { error: { code: 404, message: `Not Found: ${url.pathname}` } });
    if (decodeURIComponent(m[1]!) !== bucket) return send(404, { error: { code: 404, message: 'The specified bucket does not exist.', errors: [{ reason: 'notFound' }] } });
    if (m[2] === undefined) {
      const prefix = url.searchParams.get('prefix') ?? '';
      const delimiter = url.searchParams.get('delimiter');
      const names = Object.keys(objects).filter((n) => n.startsWith(prefix)).sort();
      const prefixes = new Set<string>();
      const items = [];
      for (const n of names) {
        const rest = n.slice(prefix.length);
        const cut = delimiter ? rest.indexOf(delimiter) : -1;
        if (cut >= 0) prefixes.add(prefix + rest.slice(0, cut + 1));
        else items.push(meta(n));
      }
      return send(200, { kind: 'storage#objects', ...(items.length && { items }), ...(prefixes.size && { prefixes: [...prefixes] }) });
    }
    const name = decodeURIComponent(m[2]);
    if (!(name in objects)) return send(404, { error: { code: 404, message: `No such object: ${bucket}/${name}`, errors: [{ reason: 'notFound' }] } });
    if (url.searchParams.get('alt') === 'media') {
      res.writeHead(200, { 'content-type': meta(name).contentType });
      return res.end(objects[name]);
    }
    send(200, meta(name));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    keyJson: key.json,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
