import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { AuthService } from '../auth/auth.service.js';
import { organizationOf, requirePrincipal, SIGNED_IN } from '../auth/authenticate.js';
import { apiErrors } from '../errors.js';
import { ref } from '../lib/schema.js';
import { StatsQuery, StatsView } from './stats.schemas.js';
import type { StatsService } from './stats.service.js';

export async function statsRoutes(
  app: FastifyInstance,
  { auth, stats }: { auth: AuthService; stats: StatsService },
): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.addHook('preHandler', requirePrincipal(auth));

  r.get(
    '/v1/stats',
    {
      schema: {
        operationId: 'getStats',
        summary: 'Call statistics per hour or day: results, outcomes, conversion, durations, tools, deliveries',
        tags: ['Stats'],
        security: SIGNED_IN,
        querystring: StatsQuery,
        response: {
          200: ref(StatsView, { description: 'Every interval of the period, and the totals' }),
          ...apiErrors('unauthorized', 'not_found', 'validation', 'unavailable'),
        },
      },
    },
    async (request) => stats.get(organizationOf(request), request.query),
  );
}
