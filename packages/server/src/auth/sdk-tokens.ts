import { SignJWT, jwtVerify } from 'jose';

/** The Data SDK checks that a refresh token starts with this (`_write_refresh_token`). */
export const SDK_REFRESH_PREFIX = 'v1.';
/** How long an SDK access token lasts; the SDK refreshes a minute before its `exp`. */
export const SDK_ACCESS_TTL_S = 60 * 60;

const ISSUER = 'studio';
const AUDIENCE = 'studio-sdk';

/** A compact JWS (header.payload.signature, base64url): what an SDK access token looks like. */
export const looksLikeJwt = (token: string) => /^eyJ[\w-]*\.[\w-]+\.[\w-]+$/.test(token);

export interface SdkClaims {
  userId: string;
  /** The SDK key the token was exchanged for: every call checks it is still in use. */
  keyId: string;
}

/**
 * Access tokens for the Data SDK: JWTs (HS256) the SDK can read the expiry of, signed with a key derived
 * from the installation's master key (auth/secrets.ts), so every API node verifies them and a catalog
 * alone cannot forge them. A token names its key (`jti`); the key's revocation stops the token
 * (services/auth.ts checks it on each resolution).
 */
export class SdkTokens {
  constructor(
    private readonly key: Uint8Array,
    private readonly now: () => number = Date.now,
  ) {}

  async issue(claims: SdkClaims): Promise<{ token: string; expiresIn: number }> {
    const issuedAt = Math.floor(this.now() / 1000);
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(claims.userId)
      .setJti(claims.keyId)
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + SDK_ACCESS_TTL_S)
      .sign(this.key);
    return { token, expiresIn: SDK_ACCESS_TTL_S };
  }

  /** The claims of a token this studio signed and that has not expired; null for any other. */
  async verify(token: string): Promise<SdkClaims | null> {
    try {
      const { payload } = await jwtVerify(token, this.key, {
        algorithms: ['HS256'],
        issuer: ISSUER,
        audience: AUDIENCE,
        currentDate: new Date(this.now()),
        requiredClaims: ['exp', 'jti', 'sub'],
      });
      return { userId: payload.sub!, keyId: payload.jti! };
    } catch {
      // jose throws for a bad signature, a wrong issuer or audience, an expired or malformed token: all mean "not ours".
      return null;
    }
  }
}
