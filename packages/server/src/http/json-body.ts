import type { FastifyInstance } from 'fastify';
import { badInput } from '@studio/schema';
import { jsonTooDeep, tooDeep } from '@studio/engine';

/**
 * Fastify's own application/json parser (body limit, prototype-poisoning refusal, empty-body error), with the
 * nesting depth checked first: a body nested 5,000 deep parses, then overflows the stack in the first
 * JSON.stringify or recursive validator that walks it (a 500). Past 64 levels it is refused with a 422 here.
 */
export function installJsonBodyParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body: Buffer, done) => {
    if (jsonTooDeep(body)) return done(badInput(tooDeep()), undefined);
    parse(req, body.toString('utf8'), done);
  });
}
