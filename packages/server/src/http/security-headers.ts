import helmet from '@fastify/helmet';
import type { FastifyInstance, FastifyReply } from 'fastify';

/**
 * The content security policy of every answer: the studio's pages load only their own scripts, and nothing
 * is fetched from another host (the map builder's basemaps, glyphs and tiles come from this server too).
 * What the web app needs beyond 'self', each measured by the browser tests (which fail on any violation):
 * - `'wasm-unsafe-eval'`: Perspective's pivot tables are WebAssembly;
 * - `blob:` workers: the map libraries start their workers from blob URLs;
 * - inline styles: kepler.gl's styled-components and ECharts write style elements and attributes;
 * - `data:`/`blob:` images and fonts: icons, map sprites and canvases turned into images.
 * No inline script and no eval anywhere: the API docs page loads its script from /docs/app.js.
 */
export const CSP_DIRECTIVES = {
  defaultSrc: ["'self'"],
  scriptSrc: ["'self'", "'wasm-unsafe-eval'"],
  workerSrc: ["'self'", 'blob:'],
  childSrc: ["'self'", 'blob:'],
  styleSrc: ["'self'", "'unsafe-inline'"],
  imgSrc: ["'self'", 'data:', 'blob:'],
  fontSrc: ["'self'", 'data:'],
  connectSrc: ["'self'", 'data:', 'blob:'],
  frameSrc: ["'self'"],
  objectSrc: ["'none'"],
  baseUri: ["'self'"],
  formAction: ["'self'"],
  frameAncestors: ["'self'"],
  // helmet adds upgrade-insecure-requests by default: a studio served over plain HTTP on a network (no TLS
  // in front) would then have every request upgraded to an HTTPS nobody answers.
  upgradeInsecureRequests: null,
};

/** The policy text with other frame ancestors: what a page meant to be embedded anywhere answers. */
const policyText = (frameAncestors: string) =>
  Object.entries({ ...CSP_DIRECTIVES, frameAncestors: [frameAncestors] })
    .filter(([, v]) => v !== null)
    .map(([k, v]) => `${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} ${(v as string[]).join(' ')}`)
    .join(';');
const EMBEDDABLE_PAGE_POLICY = policyText('*');

/**
 * Security headers (@fastify/helmet) on every answer: the policy above, no framing by other sites, no MIME
 * sniffing, no referrer beyond the origin, cross-origin isolation of windows and resources.
 */
export async function installSecurityHeaders(app: FastifyInstance): Promise<void> {
  await app.register(helmet, {
    contentSecurityPolicy: { useDefaults: false, directives: CSP_DIRECTIVES },
    // The map libraries' workers and Perspective's WebAssembly are same-origin; nothing needs cross-origin isolation.
    crossOriginEmbedderPolicy: false,
  });
}

/** A page meant for other sites' frames (a published map at /public/{id}): any site may frame it. */
export function embeddablePage(reply: FastifyReply): void {
  reply.header('content-security-policy', EMBEDDABLE_PAGE_POLICY).removeHeader('x-frame-options');
}

/** An API answer meant for other sites (published data, tiles, basemaps): readable by their pages and images. */
export function embeddableResource(reply: FastifyReply): void {
  reply.header('cross-origin-resource-policy', 'cross-origin');
}
