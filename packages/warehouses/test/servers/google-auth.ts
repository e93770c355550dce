import { generateKeyPairSync, verify } from 'node:crypto';

/** A service account key file as Google Cloud hands it out, with a fresh RSA key; and its public half. */
export function serviceAccountKey(projectId: string) {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const email = `studio-test@${projectId}.iam.gserviceaccount.com`;
  const json = JSON.stringify({
    type: 'service_account',
    project_id: projectId,
    private_key_id: 'test-key-1',
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    client_email: email,
    client_id: '1234567890',
    token_uri: 'https://oauth2.googleapis.com/token',
    universe_domain: 'googleapis.com',
  });
  return { json, email, publicKey };
}

/**
 * Whether an Authorization header carries a self-signed JWT of that account (RS256, signed by its key,
 * iss and sub its email): what Google's APIs accept from a service account in place of an access token.
 */
export function signedBy(header: string | undefined, email: string, publicKey: ReturnType<typeof serviceAccountKey>['publicKey']): boolean {
  const token = /^Bearer (.+)$/.exec(header ?? '')?.[1];
  const [head, body, signature] = token?.split('.') ?? [];
  if (!head || !body || !signature) return false;
  const claims = JSON.parse(Buffer.from(body, 'base64url').toString()) as { iss?: string; exp?: number };
  if (claims.iss !== email || (claims.exp ?? 0) * 1000 < Date.now()) return false;
  return verify('RSA-SHA256', Buffer.from(`${head}.${body}`), publicKey, Buffer.from(signature, 'base64url'));
}
