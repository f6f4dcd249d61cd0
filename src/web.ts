import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { PAGE_SECURITY_HEADERS } from './lib/page-security-headers.js';

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

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

/**
 * The dashboard (docs/interface.md#dashboard), served by the API process at `/`: the files Vite built (its
 * `assets/` are content-hashed, so cached for a year), and index.html for any other page a browser
 * asks for (the app routes in the browser). A few lines instead of @fastify/static: the server
 * starts without loading a file-serving stack it needs only when a browser comes (decision 0021).
 */
export async function dashboardRoutes(app: FastifyInstance, { dir }: { dir: string }): Promise<void> {
  const root = path.resolve(dir);
  const send = async (reply: FastifyReply, file: string, immutable: boolean) => {
    const body = await readFile(file);
    return reply
      .type(TYPES[path.extname(file)] ?? 'application/octet-stream')
      .header('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
      .headers(PAGE_SECURITY_HEADERS)
      .send(body);
  };

  app.get('/assets/*', async (request, reply) => {
    const name = (request.params as { '*': string })['*'];
    const file = path.resolve(root, 'assets', name);
    // Nothing outside assets/, whatever the path says.
    if (!file.startsWith(path.join(root, 'assets') + path.sep) || !existsSync(file)) return reply.callNotFound();
    return send(reply, file, true);
  });

  // The favicon, where browsers ask for it (web/public/favicon.svg, copied to the root of dist/web by Vite). Its
  // name carries no hash, so it is revalidated like index.html rather than cached for a year.
  app.get('/favicon.svg', async (_request, reply) => {
    const file = path.join(root, 'favicon.svg');
    return existsSync(file) ? send(reply, file, false) : reply.callNotFound();
  });

  app.get('/*', async (request, reply) => {
    const urlPath = request.url.split('?')[0] ?? '';
    if (API_PREFIXES.some((prefix) => urlPath.startsWith(prefix)) || !request.headers.accept?.includes('text/html')) {
      return reply.callNotFound();
    }
    return send(reply, path.join(root, 'index.html'), false);
  });
}

/** Serves the built dashboard at `/`, or says at start that it is not built. */
export async function registerDashboard(app: FastifyInstance): Promise<void> {
  const dir = dashboardDir();
  if (dir) await app.register(dashboardRoutes, { dir });
  else app.log.warn('the dashboard is not built (npm run build): / serves nothing');
}
