import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ConfigEnv } from '../src/config';

/**
 * The container files run the commands the tests run without containers (no Docker engine runs on these
 * machines): the Dockerfile builds with the README's build command and starts the README's run command,
 * the compose file sets only variables the configuration schema knows (a misspelt one would be ignored
 * in silence by a container, and refused here), and the proxy spreads requests over the compose file's API
 * nodes while overwriting X-Forwarded-For, which STUDIO_TRUST_PROXY=true relies on.
 */
const ROOT = path.resolve(__dirname, '../../..');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');
const readmeBlock = (label: string) => new RegExp('```sh\\n# ' + label + '\\n(.+)\\n```').exec(read('README.md'))?.[1];

interface ComposeService {
  environment?: Record<string, string>;
  build?: unknown;
}

describe('deployment files', () => {
  const dockerfile = read('Dockerfile');
  const compose = parse(read('deploy/compose.yaml'), { merge: true }) as { services: Record<string, ComposeService> };
  const apiNodes = Object.entries(compose.services).filter(([, s]) => s.build);

  it("builds with the README's build command and starts its run command", () => {
    expect(readmeBlock('deploy: build')).toBe('npm ci && npm run build');
    expect(dockerfile).toContain(`RUN ${readmeBlock('deploy: build')!} && npm prune --omit=dev`);
    // In the image `node` is Node 22 itself; outside it the README names the pinned one in node_modules.
    const cmd = JSON.parse(/^CMD (.+)$/m.exec(dockerfile)![1]!) as string[];
    expect(cmd.join(' ')).toBe(readmeBlock('deploy: run')!.replace('node_modules/.bin/node', 'node'));
    expect(dockerfile).toMatch(/^FROM node:22-/m);
  });

  it('runs two API nodes on PostgreSQL and Redis, each named, sharing one secret', () => {
    expect(apiNodes.map(([name]) => name)).toEqual(['api-1', 'api-2']);
    for (const [name, s] of apiNodes) {
      expect(s.environment).toMatchObject({ STUDIO_NODE_ID: name, STUDIO_TRUST_PROXY: 'true' });
      expect(s.environment!.DATABASE_URL).toMatch(/^postgres:\/\/.+@postgres:5432\//);
      expect(s.environment!.REDIS_URL).toBe('redis://redis:6379');
      expect(s.environment!.STUDIO_SECRET).toMatch(/^\$\{STUDIO_SECRET:\?/);
    }
  });

  it("keeps objects in the compose file's S3-compatible store, which every node reaches, and each node's cache in its own volume", () => {
    const all = compose.services as Record<string, ComposeService & { image?: string; volumes?: string[] }>;
    for (const [name, s] of apiNodes) {
      expect(s.environment!.STUDIO_OBJECT_STORE).toMatch(/^s3:\/\/[a-z0-9.-]+\//);
      const endpoint = new URL(s.environment!.STUDIO_S3_ENDPOINT!);
      expect(all[endpoint.hostname]?.image, name).toMatch(/^minio\/minio:/);
      expect(all[name]!.volumes).toEqual([`${name}-data:/data`]);
    }
    // The bucket the nodes name is the one made at start.
    const bucket = /^s3:\/\/([^/]+)/.exec(apiNodes[0]![1].environment!.STUDIO_OBJECT_STORE!)![1];
    expect(JSON.stringify(all['objects-bucket'])).toContain(`mc mb --ignore-existing local/${bucket}`);
  });

  it('sets only variables the configuration schema knows', () => {
    const known = new Set(Object.keys(ConfigEnv.shape));
    for (const [name, s] of apiNodes) {
      expect(Object.keys(s.environment!).filter((v) => !known.has(v)), name).toEqual([]);
    }
  });

  it('proxies round-robin to exactly those nodes and overwrites X-Forwarded-For', () => {
    const nginx = read('deploy/nginx.conf');
    const upstream = [...nginx.matchAll(/^\s*server (\S+):8080;/gm)].map((m) => m[1]);
    expect(upstream).toEqual(apiNodes.map(([name]) => name));
    expect(nginx).toContain('proxy_set_header X-Forwarded-For $remote_addr;');
    expect(nginx).not.toContain('$proxy_add_x_forwarded_for');
  });
});
