import type { FastifyInstance } from 'fastify';
import type { Database } from '../db/client.js';
import { migrationsCurrent } from '../db/migrate.js';

export async function healthRoutes(app: FastifyInstance, { database }: { database: Database }): Promise<void> {
  app.get('/healthz', async () => ({ status: 'ok' }));

  app.get('/readyz', async (_request, reply) => {
    try {
      await database.ping(2000);
      if (!(await migrationsCurrent(database.db))) {
        return reply.status(503).send({ status: 'not_ready', reason: 'migrations pending' });
      }
      return { status: 'ready' };
    } catch {
      return reply.status(503).send({ status: 'not_ready', reason: 'database unreachable' });
    }
  });
}
