import type { FastifyInstance } from 'fastify';
import type { Database } from '../db/client.js';
import { migrationsCurrent } from '../db/migrate.js';

export async function healthRoutes(app: FastifyInstance, { database }: { database: Database }): Promise<void> {
  app.get('/healthz', async () => ({ status: 'ok' }));

  app.get('/readyz', async (_request, reply) => {
    try {
      // Well within the few seconds a load balancer waits for a probe: an unreachable database must
      // fail the probe, not time it out (decision 0023).
      await database.ping(1000);
      if (!(await migrationsCurrent(database.db))) {
        return reply.status(503).send({ status: 'not_ready', reason: 'migrations pending' });
      }
      return { status: 'ready' };
    } catch {
      return reply.status(503).send({ status: 'not_ready', reason: 'database unreachable' });
    }
  });
}
