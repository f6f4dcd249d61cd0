import type { FastifyInstance } from 'fastify';
import { PUBLIC } from '../auth/authenticate.js';
import type { Metrics } from './metrics.js';

/**
 * `GET /metrics`: Prometheus text. Unauthenticated, like /healthz (decision 0025): it carries counts
 * and timings, no tenant's data, and operators keep it off the public internet at their proxy.
 */
export async function metricsRoutes(app: FastifyInstance, { metrics }: { metrics: Metrics }): Promise<void> {
  app.get(
    '/metrics',
    {
      schema: {
        operationId: 'getMetrics',
        summary: 'Prometheus metrics (text exposition format)',
        tags: ['Operations'],
        security: PUBLIC,
        response: {
          200: { description: 'The metrics', content: { 'text/plain': { schema: { type: 'string' } } } },
        },
      },
    },
    async (_request, reply) => {
      const text = await metrics.text();
      return reply.type(metrics.contentType).send(text);
    },
  );
}

/**
 * Times every request by its route pattern (`/v1/agents/:id`), never the raw URL. A callback hook:
 * it runs on every request, and a promise per request shows.
 */
export function recordHttpRequests(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', (request, reply, done) => {
    metrics.http.observe(request.routeOptions.url, request.method, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
}
