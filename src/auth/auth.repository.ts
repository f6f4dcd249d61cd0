import { and, desc, eq, gt, inArray, isNull, max, min, sql } from 'drizzle-orm';
import { type Db, deleteBatchBefore, probeOnly } from '../db/client.js';
import { apiKeys, loginFailures, organizations, sessions, users } from '../db/schema/index.js';

export type OrganizationRow = typeof organizations.$inferSelect;
export type UserRow = typeof users.$inferSelect;
export type ApiKeyRow = typeof apiKeys.$inferSelect;

export interface AttemptCount {
  count: number;
  first: Date;
  last: Date;
}

export interface Principal {
  organizationId: string;
  userId: string | null;
}

export function createAuthRepository(db: Db) {
  // Every management request is authenticated by one of these two reads: named prepared statements
  // (decision 0058), parsed and planned once per connection; `probeOnly` keeps their kept plan the
  // unique index's probe on any table size.
  const principalBySession = db
    .select({ organizationId: sessions.organizationId, userId: sessions.userId })
    .from(sessions)
    .where(
      and(
        eq(sessions.tokenHash, sql.placeholder('tokenHash')),
        probeOnly(sessions.tokenHash),
        gt(sessions.expiresAt, sql.placeholder('now')),
      ),
    )
    .limit(1)
    .prepare('principal_by_session');
  const principalByApiKey = db
    .select({ organizationId: apiKeys.organizationId })
    .from(apiKeys)
    .where(and(eq(apiKeys.keyHash, sql.placeholder('keyHash')), probeOnly(apiKeys.keyHash), isNull(apiKeys.revokedAt)))
    .limit(1)
    .prepare('principal_by_api_key');

  return {
    /**
     * Attempts counted for each key since `since` (decision 0030): how many, and when the first and
     * the latest were. The login_failures table holds them, a row per key and second: failed
     * log-ins per account and address and per address, sign-ups per address.
     */
    async attemptsSince(keys: string[], since: Date): Promise<Map<string, AttemptCount>> {
      const rows = await db
        .select({
          key: loginFailures.key,
          count: sql<number>`sum(${loginFailures.count})`.mapWith(Number),
          first: min(loginFailures.windowStart),
          last: max(loginFailures.windowStart),
        })
        .from(loginFailures)
        .where(and(inArray(loginFailures.key, keys), gt(loginFailures.windowStart, since)))
        .groupBy(loginFailures.key);
      return new Map(
        rows
          .filter((row) => row.count > 0 && row.first && row.last)
          .map((row) => [row.key, { count: row.count, first: row.first!, last: row.last! }]),
      );
    },

    /** One more attempt for each key at `at` (to the second), in one statement that every process shares. */
    async recordAttempt(keys: string[], at: Date): Promise<void> {
      const second = new Date(at.getTime() - (at.getTime() % 1000));
      await db
        .insert(loginFailures)
        .values(keys.map((key) => ({ key, windowStart: second, count: 1 })))
        .onConflictDoUpdate({
          target: [loginFailures.key, loginFailures.windowStart],
          set: { count: sql`${loginFailures.count} + 1` },
        });
    },

    /** Takes back one attempt recorded with `recordAttempt(…, at)`. */
    async forgetAttempt(key: string, at: Date): Promise<void> {
      const second = new Date(at.getTime() - (at.getTime() % 1000));
      await db
        .update(loginFailures)
        .set({ count: sql`${loginFailures.count} - 1` })
        .where(and(eq(loginFailures.key, key), eq(loginFailures.windowStart, second), gt(loginFailures.count, 0)));
    },

    /** Forgets every attempt of a key (a successful log-in, for its account and address). */
    async clearAttempts(key: string): Promise<void> {
      await db.delete(loginFailures).where(eq(loginFailures.key, key));
    },

    /** Forgets up to `limit` failures older than `before`; returns how many. */
    pruneAttempts(before: Date, limit: number): Promise<number> {
      return deleteBatchBefore(db, loginFailures, loginFailures.windowStart, before, limit);
    },

    /** Creates the organization, its first user and its first API key together, or none of them. */
    async createOrganization(input: {
      organization: typeof organizations.$inferInsert;
      user: typeof users.$inferInsert;
      apiKey: typeof apiKeys.$inferInsert;
    }): Promise<{ ok: true } | { ok: false; reason: 'email_taken' }> {
      const emailTaken = { ok: false as const, reason: 'email_taken' as const };
      try {
        return await db.transaction(async (tx) => {
          const taken = await tx
            .select({ id: users.id })
            .from(users)
            .where(sql`lower(${users.email}) = lower(${input.user.email})`)
            .limit(1);
          if (taken.length > 0) return emailTaken;
          await tx.insert(organizations).values(input.organization);
          const inserted = await tx.insert(users).values(input.user).onConflictDoNothing().returning({ id: users.id });
          // Lost a race for the same email: undo the organization too.
          if (inserted.length === 0) throw emailTaken;
          await tx.insert(apiKeys).values(input.apiKey);
          return { ok: true as const };
        });
      } catch (error) {
        if (error === emailTaken) return emailTaken;
        throw error;
      }
    },

    async findUserByEmail(email: string): Promise<(UserRow & { organizationName: string }) | undefined> {
      const rows = await db
        .select({ user: users, organizationName: organizations.name })
        .from(users)
        .innerJoin(organizations, eq(organizations.id, users.organizationId))
        .where(sql`lower(${users.email}) = lower(${email})`)
        .limit(1);
      const row = rows[0];
      return row ? { ...row.user, organizationName: row.organizationName } : undefined;
    },

    async findOrganization(id: string): Promise<OrganizationRow | undefined> {
      const rows = await db.select().from(organizations).where(eq(organizations.id, id)).limit(1);
      return rows[0];
    },

    async findUser(id: string): Promise<UserRow | undefined> {
      const rows = await db.select().from(users).where(eq(users.id, id)).limit(1);
      return rows[0];
    },

    async insertSession(row: typeof sessions.$inferInsert): Promise<void> {
      await db.insert(sessions).values(row);
    },

    async deleteSession(tokenHash: string): Promise<void> {
      await db.delete(sessions).where(eq(sessions.tokenHash, tokenHash));
    },

    async findPrincipalBySession(tokenHash: string, now: Date): Promise<Principal | undefined> {
      const rows = await principalBySession.execute({ tokenHash, now: now.toISOString() });
      return rows[0];
    },

    async findPrincipalByApiKey(keyHash: string): Promise<Principal | undefined> {
      const rows = await principalByApiKey.execute({ keyHash });
      const row = rows[0];
      return row ? { organizationId: row.organizationId, userId: null } : undefined;
    },

    async insertApiKey(row: typeof apiKeys.$inferInsert): Promise<ApiKeyRow> {
      const [inserted] = await db.insert(apiKeys).values(row).returning();
      if (!inserted) throw new Error('insert returned no row');
      return inserted;
    },

    async listApiKeys(organizationId: string): Promise<ApiKeyRow[]> {
      return db
        .select()
        .from(apiKeys)
        .where(and(eq(apiKeys.organizationId, organizationId), isNull(apiKeys.revokedAt)))
        .orderBy(desc(apiKeys.id));
    },

    /** Revokes the key; its hash, so that caches of it can be told, or undefined when there was none to revoke. */
    async revokeApiKey(organizationId: string, id: string, now: Date): Promise<string | undefined> {
      const rows = await db
        .update(apiKeys)
        .set({ revokedAt: now })
        .where(and(eq(apiKeys.organizationId, organizationId), eq(apiKeys.id, id), isNull(apiKeys.revokedAt)))
        .returning({ keyHash: apiKeys.keyHash });
      return rows[0]?.keyHash;
    },
  };
}

export type AuthRepository = ReturnType<typeof createAuthRepository>;
