import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { PUBLIC } from '../auth/authenticate.js';
import type { Database } from '../db/client.js';
import { migrationsCurrent } from '../db/migrate.js';
import { ref } from '../lib/schema.js';

const Live = Type.Object({ status: Type.Literal('ok') }, { $id: 'Liveness' });
const Ready = Type.Object({ status: Type.Literal('ready') }, { $id: 'Readiness' });
const NotReady = Type.Object(
  {
    status: Type.Literal('not_ready'),
    reason: Type.String({ examples: ['database unreachable', 'migrations pending'] }),
  },
  { $id: 'NotReady' },
);

export const HEALTH_VIEWS = [Live, Ready, NotReady];

const tags = ['Operations'];

export async function healthRoutes(app: FastifyInstance, { database }: { database: Database }): Promise<void> {
  app.get(
    '/healthz',
    {
      schema: {
        operationId: 'getLiveness',
        summary: 'Liveness: the process answers',
        tags,
        security: PUBLIC,
        response: { 200: ref(Live, { description: 'Alive' }) },
      },
    },
    async () => ({ status: 'ok' }),
  );

  app.get(
    '/readyz',
    {
      schema: {
        operationId: 'getReadiness',
        summary: 'Readiness: the database is reachable and migrated (else 503)',
        tags,
        security: PUBLIC,
        response: {
          200: ref(Ready, { description: 'Ready for traffic' }),
          503: ref(NotReady, { description: 'Not ready: the reason says why' }),
        },
      },
    },
    async (_request, reply) => {
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
    },
  );
}
