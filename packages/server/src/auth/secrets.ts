import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Key material of one installation. Every API node must share it (signed upload policies, encrypted
 * connection secrets); where it comes from is auth/master-key.ts (never the catalog).
 */
export class Secrets {
  private readonly signingKey: Buffer;
  private readonly encryptionKey: Buffer;
  /** The key SDK access tokens (JWTs) are signed with (auth/sdk-tokens.ts): its own, so one purpose cannot forge another's. */
  readonly sdkTokenKey: Uint8Array;

  constructor(master: string) {
    this.signingKey = Buffer.from(hkdfSync('sha256', master, 'studio', 'signing', 32));
    this.encryptionKey = Buffer.from(hkdfSync('sha256', master, 'studio', 'encryption', 32));
    this.sdkTokenKey = new Uint8Array(hkdfSync('sha256', master, 'studio', 'sdk-access-token', 32));
  }

  sign(payload: string): string {
    return createHmac('sha256', this.signingKey).update(payload).digest('base64url');
  }

  verify(payload: string, signature: string): boolean {
    const expected = Buffer.from(this.sign(payload));
    const given = Buffer.from(signature);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }

  /** AES-256-GCM; output is `v1.iv.tag.ciphertext` in base64url. */
  encrypt(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.encryptionKey, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
  }

  decrypt(sealed: string): string {
    const [v, iv, tag, body] = sealed.split('.');
    if (v !== 'v1' || !iv || !tag || body === undefined) throw new Error('Unknown secret format');
    const decipher = createDecipheriv('aes-256-gcm', this.encryptionKey, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  }
}
