import type { FastifyError, FastifyInstance } from 'fastify';
import { isStudioError } from '@studio/schema';
import type { z } from 'zod';

/** One line naming the first problem and where it is, e.g. `name: Name must not be empty`. */
export function zodMessage(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid';
  const at = issue.path.length ? `${issue.path.join('.')}: ` : '';
  return `${at}${issue.message}`;
}

/**
 * Every error leaves as `{appStatusCode, message, details?, requestId}`. Input the framework rejects before our
 * validators (malformed JSON, wrong content type, oversized body) is bad input too: 422, not 400/500.
 */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, req, reply) => {
    const requestId = req.id;
    if (isStudioError(err)) {
      const body: Record<string, unknown> = { appStatusCode: err.appStatusCode, message: err.message };
      if (err.details !== undefined) body.details = err.details;
      // Errors that carry more for the client (a version conflict's latest version and changes, #51).
      if (err.fields) Object.assign(body, err.fields);
      return reply.code(err.status).send({ ...body, requestId });
    }
    const status = err.statusCode ?? 500;
    if (status === 413) return reply.code(413).send({ appStatusCode: 413, message: 'Request body is too large', requestId });
    if (status === 415) return reply.code(422).send({ appStatusCode: 422, message: 'Unsupported content type', requestId });
    if (status >= 400 && status < 500) {
      return reply.code(422).send({ appStatusCode: 422, message: `Invalid request: ${err.message}`, requestId });
    }
    req.log.error({ err }, 'unhandled error');
    return reply.code(500).send({ appStatusCode: 500, message: 'Internal Server Error', requestId });
  });
  app.setNotFoundHandler((req, reply) =>
    reply.code(404).send({ appStatusCode: 404, message: `No route for ${req.method} ${req.url.split('?')[0]}`, requestId: req.id }),
  );
}
