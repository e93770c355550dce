import { z } from 'zod';
import { ErrorBody } from '@studio/schema';
import type { RouteDef } from './route';

const toSchema = (t: z.ZodType, io: 'input' | 'output') => {
  try {
    return z.toJSONSchema(t, { io, unrepresentable: 'any' });
  } catch {
    return {};
  }
};

/** A success answer's media types: the declared JSON schema, and each declared other type as bytes (or text). */
function answerContent(r: RouteDef): Record<string, { schema: unknown }> {
  const content: Record<string, { schema: unknown }> = {};
  for (const type of r.produces ?? []) content[type] = { schema: type.startsWith('text/') ? { type: 'string' } : { type: 'string', format: 'binary' } };
  if (r.response) content['application/json'] = { schema: toSchema(r.response, 'output') };
  return content;
}

/** OpenAPI 3.1 generated from the route table: the validators are the only source of truth. */
export function openApiDocument(routes: RouteDef[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const parameters: unknown[] = [];
    const add = (where: 'path' | 'query', t: z.ZodType | undefined) => {
      const schema = t ? (toSchema(t, 'input') as { properties?: Record<string, unknown>; required?: string[] }) : {};
      for (const [name, s] of Object.entries(schema.properties ?? {})) {
        parameters.push({ name, in: where, required: where === 'path' || (schema.required ?? []).includes(name), schema: s });
      }
    };
    add('path', r.params);
    add('query', r.query);
    const op: Record<string, unknown> = {
      operationId: `${r.method.toLowerCase()}${r.url.replace(/[{}]/g, '').replace(/[^a-zA-Z0-9]+(.)/g, (_, c: string) => c.toUpperCase())}`,
      summary: r.summary,
      tags: [r.tag],
      parameters,
      security: r.auth === 'public' ? [] : [{ bearer: [] }],
      'x-auth': r.auth,
      ...(r.resource && { 'x-resource-guard': { ...r.resource } }),
      ...(r.spec?.length && { 'x-spec': r.spec }),
      responses: {
        [String(r.status ?? 200)]: {
          description: r.status === 204 ? 'Success, nothing answered' : 'Success',
          ...((r.response || r.produces) && { content: answerContent(r) }),
        },
        default: { description: 'Error', content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } } },
      },
    };
    if (r.body) op.requestBody = { required: true, content: { 'application/json': { schema: toSchema(r.body, 'input') } } };
    if (r.rawBody) op.requestBody = { required: true, content: { '*/*': { schema: { type: 'string', format: 'binary' } } } };
    (paths[r.url] ??= {})[r.method.toLowerCase()] = op;
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Geospatial analytics studio API', version: '1' },
    servers: [{ url: '/' }],
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: { ErrorBody: toSchema(ErrorBody, 'output') },
    },
    paths,
  };
}

/**
 * A self-contained API browser (GET /docs): the operations of /v1/openapi.json, filterable; no script or style
 * from any other host. Its script is served apart, at /docs/app.js: the content security policy forbids inline script.
 */
export const DOCS_PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>Studio API</title>
<style>body{font:14px system-ui,sans-serif;margin:0;display:flex}nav{width:280px;height:100vh;overflow:auto;border-right:1px solid #ddd;padding:8px}
main{flex:1;height:100vh;overflow:auto;padding:16px}.op{border:1px solid #e3e3e3;border-radius:6px;margin:8px 0;padding:8px}
.m{display:inline-block;min-width:56px;font-weight:600}.GET{color:#0a7}.POST{color:#06c}.PUT{color:#a60}.DELETE{color:#c22}
pre{background:#f6f6f6;padding:8px;overflow:auto;max-height:300px}input{width:100%}</style></head>
<body><nav><h3>Studio API</h3><input id="q" placeholder="filter"><div id="tags"></div></nav><main id="ops">Loading…</main>
<script src="/docs/app.js"></script></body></html>`;

export const DOCS_SCRIPT = `fetch('/v1/openapi.json').then(r=>r.json()).then(doc=>{
  const ops=[];for(const [p,ms] of Object.entries(doc.paths))for(const [m,o] of Object.entries(ms))ops.push({p,m:m.toUpperCase(),o});
  const render=()=>{const q=document.getElementById('q').value.toLowerCase();const main=document.getElementById('ops');main.innerHTML='';
    for(const {p,m,o} of ops){if(q&&!(p+o.summary+o.tags).toLowerCase().includes(q))continue;const d=document.createElement('details');d.className='op';
      const s=document.createElement('summary');s.innerHTML='<span class="m '+m+'">'+m+'</span> <code></code> — <span></span>';
      s.querySelector('code').textContent=p;s.querySelector('span:last-child').textContent=o.summary+' ['+o['x-auth']+']';d.appendChild(s);
      const pre=document.createElement('pre');pre.textContent=JSON.stringify({parameters:o.parameters,requestBody:o.requestBody,guard:o['x-resource-guard']},null,2);d.appendChild(pre);main.appendChild(d);}};
  document.getElementById('q').oninput=render;render();});
`;
