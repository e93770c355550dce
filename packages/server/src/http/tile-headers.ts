import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

export { versionOf } from '@studio/tiles';

/**
 * Caching of tiles by browsers and private caches (docs/decisions.md "Tile caching"). A tileset's version is
 * a digest of the storage key its bytes come from: rebuilding it or replacing its data writes a new key, so
 * a new version. URLs handed out by a tileset's metadata or TileJSON carry it (`?v=`); such a URL names bytes
 * that never change and may be kept a year without asking again. Every other tile URL is asked again each
 * time, answered 304 when the client's copy (its ETag) is current. `private`: tiles are read behind an
 * access check, and a shared cache must not hand them to someone else — except the tiles of a map published
 * without a password (publicImmutable).
 */
export const IMMUTABLE = 'private, max-age=31536000, immutable';
export const REVALIDATE = 'private, no-cache';
/**
 * A versioned tile of a published map without a password, through its signed link: anyone holding the URL
 * may read it, so shared caches (a CDN in front of the studio) may keep it, until the link expires.
 */
export const publicImmutable = (maxAgeSeconds: number) => `public, max-age=${Math.max(0, Math.min(31_536_000, Math.floor(maxAgeSeconds)))}, immutable`;

/** A strong ETag of one answer: the version and what was answered of it (the tile, its fields, its format). */
export const etagOf = (version: string, variant: string): string => `"${createHash('sha256').update(`${version}\0${variant}`).digest('base64url').slice(0, 27)}"`;

/**
 * Sets a tile answer's ETag and Cache-Control (`immutable` only when the URL names the current version) and,
 * when the client already holds this answer (If-None-Match), sends 304: answers true, and the caller sends
 * nothing more. Run after the access check, so a 304 tells a stranger nothing.
 */
export function notModified(req: FastifyRequest, reply: FastifyReply, version: string, variant: string, asked: string | undefined, immutable = IMMUTABLE): boolean {
  const etag = etagOf(version, variant);
  reply.header('etag', etag).header('cache-control', asked === version ? immutable : REVALIDATE);
  const held = req.headers['if-none-match'];
  if (held === undefined || !String(held).split(',').some((t) => t.trim() === etag || t.trim() === '*')) return false;
  void reply.code(304).send();
  return true;
}
