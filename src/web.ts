import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

/** Where `npm run build` puts the dashboard: dist/web, found from this file in src/ or in dist/. */
export function dashboardDir(): string | undefined {
  for (const candidate of ['./web/', '../dist/web/']) {
    const dir = fileURLToPath(new URL(candidate, import.meta.url));
    if (existsSync(`${dir}index.html`)) return dir;
  }
  return undefined;
}

/** Paths that are never the dashboard's: the APIs keep their JSON 404. */
const API_PREFIXES = ['/v1/', '/api/', '/providers/', '/healthz', '/readyz', '/metrics', '/openapi.json', '/docs'];

/**
 * The dashboard (CONTRACT §7), served by the API process at `/`: its built files, and its
 * index.html for any other page a browser asks for (the app routes in the browser).
 */
export async function dashboardRoutes(app: FastifyInstance, { dir }: { dir: string }): Promise<void> {
  await app.register(fastifyStatic, { root: dir, prefix: '/', wildcard: false, index: 'index.html' });
  app.get('/*', async (request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    if (API_PREFIXES.some((prefix) => path.startsWith(prefix)) || !request.headers.accept?.includes('text/html')) {
      return reply.callNotFound();
    }
    return reply.type('text/html').sendFile('index.html');
  });
}
