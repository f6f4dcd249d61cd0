import type { ChangeFeed } from '../db/change-feed.js';
import { createFeedCache } from '../db/feed-cache.js';
import { pruneInBatches } from '../jobs/prune.js';
import { randomToken, sha256Hex } from '../lib/crypto.js';
import { newId } from '../lib/ids.js';
import { DUMMY_PASSWORD_HASH, hashPassword, verifyPassword } from '../lib/password.js';
import type { ApiKeyRow, AttemptCount, AuthRepository, Principal } from './auth.repository.js';
import type { ApiKeyView } from './auth.schemas.js';
import { passwordProblem } from './password-policy.js';

/** The change feed's topic of API keys: a key hash published there is forgotten by every process's cache. */
const API_KEY_TOPIC = 'api-key';

/** Sessions last 30 days; a dashboard user logs in about once a month. */
const SESSION_TTL_MS = 30 * 24 * 3600 * 1000;

export interface SignupInput {
  organization: string;
  email: string;
  password: string;
}

export type SignupResult =
  | {
      ok: true;
      organization: { id: string; name: string };
      user: { id: string; email: string };
      apiKey: string;
      sessionToken: string;
    }
  | { ok: false; reason: 'signup_closed' | 'email_taken' }
  | { ok: false; reason: 'weak_password'; message: string }
  | { ok: false; reason: 'rate_limited'; retryAfterSeconds: number };

export type LoginResult =
  | { ok: true; organization: { id: string; name: string }; user: { id: string; email: string }; sessionToken: string }
  | { ok: false; reason: 'invalid' }
  | { ok: false; reason: 'rate_limited'; retryAfterSeconds: number };

/**
 * How failed log-ins slow guessing down (decision 0030). After `free` failures, the next attempt
 * must wait `firstWaitMs` after the latest failure, twice as long after each further one, up to
 * `maxWaitMs`. An attempt made sooner answers 429 with `Retry-After`, unchecked and uncounted.
 */
export interface Backoff {
  free: number;
  firstWaitMs: number;
  maxWaitMs: number;
}

/**
 * One email from one client address: 5 tries, then waits of 1, 2, 4 … minutes up to an hour, about
 * 30 guesses a day. Never the email alone: whoever guesses from elsewhere, its owner can still log in.
 */
export const LOGIN_BACKOFF_PER_EMAIL_AND_ADDRESS: Backoff = { free: 5, firstWaitMs: 60_000, maxWaitMs: 3_600_000 };
/** One client address, whichever emails it tries: 50 tries, then the same waits, about 80 guesses a day. */
export const LOGIN_BACKOFF_PER_ADDRESS: Backoff = { free: 50, firstWaitMs: 60_000, maxWaitMs: 3_600_000 };
/** How long failed log-ins are remembered: a day without one forgets them. */
export const LOGIN_MEMORY_MS = 24 * 3600 * 1000;
/** Sign-ups are counted per client address over the last hour (the limit is a setting). */
export const SIGNUP_WINDOW_MS = 3600 * 1000;

/** When the next attempt may be made after these failures (0: at once). */
function nextAttemptAt(backoff: Backoff, failures: AttemptCount | undefined): number {
  if (!failures || failures.count < backoff.free) return 0;
  const wait = Math.min(backoff.maxWaitMs, backoff.firstWaitMs * 2 ** (failures.count - backoff.free));
  return failures.last.getTime() + wait;
}

const rateLimited = (until: number, at: number) => ({
  ok: false as const,
  reason: 'rate_limited' as const,
  retryAfterSeconds: Math.max(1, Math.ceil((until - at) / 1000)),
});

function issueApiKey(organizationId: string, name: string) {
  const key = `sb_live_${randomToken(24)}`;
  return {
    key,
    row: { id: newId('key'), organizationId, name, keyHash: sha256Hex(key), prefix: `${key.slice(0, 12)}…` },
  };
}

function viewApiKey(row: ApiKeyRow): ApiKeyView {
  return { id: row.id, name: row.name, prefix: row.prefix, createdAt: row.createdAt.toISOString() };
}

export function createAuthService(deps: {
  repository: AuthRepository;
  signup: 'open' | 'closed';
  /** Sign-ups a client address may make per hour (`SWITCHBOARD_SIGNUP_LIMIT_PER_HOUR`). */
  signupLimitPerHour: number;
  /**
   * Where revoked API keys are announced to every process. With it, the organization of an API key
   * is kept in memory (decision 0066): a request authenticated by key does not wait for the
   * database first. Without it (the CLI), every key is looked up.
   */
  changes?: ChangeFeed;
  now?: () => Date;
}) {
  const { repository, changes } = deps;
  const now = deps.now ?? (() => new Date());
  const apiKeyPrincipals = changes
    ? createFeedCache({ topic: API_KEY_TOPIC, feed: changes, load: repository.findPrincipalByApiKey })
    : { get: repository.findPrincipalByApiKey };

  async function startSession(userId: string, organizationId: string): Promise<string> {
    const token = randomToken(32);
    await repository.insertSession({
      tokenHash: sha256Hex(token),
      userId,
      organizationId,
      expiresAt: new Date(now().getTime() + SESSION_TTL_MS),
    });
    return token;
  }

  return {
    /**
     * A new organization with its first user and API key. `client` is where the request came
     * from, whose sign-ups are limited per hour; the CLI's `org create` gives none.
     */
    async signup(input: SignupInput, client?: { address: string }): Promise<SignupResult> {
      if (deps.signup === 'closed') return { ok: false, reason: 'signup_closed' };
      const problem = await passwordProblem(input.password);
      if (problem) return { ok: false, reason: 'weak_password', message: problem };
      if (client) {
        const at = now();
        const key = `signup:${client.address}`;
        // Counted first and taken back when over the limit: sign-ups sent at once each see the others.
        await repository.recordAttempt([key], at);
        const counted = (await repository.attemptsSince([key], new Date(at.getTime() - SIGNUP_WINDOW_MS))).get(key);
        if (counted && counted.count > deps.signupLimitPerHour) {
          await repository.forgetAttempt(key, at);
          return rateLimited(counted.first.getTime() + SIGNUP_WINDOW_MS, at.getTime());
        }
      }
      const organizationId = newId('org');
      const userId = newId('usr');
      const email = input.email.trim().toLowerCase();
      const apiKey = issueApiKey(organizationId, 'Default key');
      const created = await repository.createOrganization({
        organization: { id: organizationId, name: input.organization.trim() },
        user: { id: userId, organizationId, email, passwordHash: await hashPassword(input.password) },
        apiKey: apiKey.row,
      });
      if (!created.ok) return created;
      return {
        ok: true,
        organization: { id: organizationId, name: input.organization.trim() },
        user: { id: userId, email },
        apiKey: apiKey.key,
        sessionToken: await startSession(userId, organizationId),
      };
    },

    async login(input: { email: string; password: string }, client: { address: string }): Promise<LoginResult> {
      const at = now();
      const emailAndAddressKey = `pair:${client.address} ${input.email.trim().toLowerCase()}`;
      const addressKey = `address:${client.address}`;
      const limits = [
        { key: emailAndAddressKey, backoff: LOGIN_BACKOFF_PER_EMAIL_AND_ADDRESS },
        { key: addressKey, backoff: LOGIN_BACKOFF_PER_ADDRESS },
      ];
      const keys = limits.map((limit) => limit.key);
      const since = new Date(at.getTime() - LOGIN_MEMORY_MS);
      const nextAt = (counts: Map<string, AttemptCount>) =>
        Math.max(...limits.map((limit) => nextAttemptAt(limit.backoff, counts.get(limit.key))));

      const before = await repository.attemptsSince(keys, since);
      // Refused before the password is checked: a refused attempt tells nothing about the password.
      if (nextAt(before) > at.getTime()) return rateLimited(nextAt(before), at.getTime());
      // Counted as a failure before the password is checked, and taken back if it was right: of
      // guesses sent at once, only those that found a try free when they were counted go on.
      await repository.recordAttempt(keys, at);
      const counted = await repository.attemptsSince(keys, since);
      const overtaken = limits.some(({ key, backoff }) => {
        const count = counted.get(key)?.count ?? 0;
        return count - 1 >= backoff.free && count > (before.get(key)?.count ?? 0) + 1;
      });
      if (overtaken) return rateLimited(nextAt(counted), at.getTime());

      const user = await repository.findUserByEmail(input.email.trim());
      // Verify against a dummy hash when no user matched, so timing does not reveal which emails exist.
      const valid = await verifyPassword(input.password, user?.passwordHash ?? DUMMY_PASSWORD_HASH);
      if (!user || !valid) return { ok: false, reason: 'invalid' };
      await repository.clearAttempts(emailAndAddressKey);
      await repository.forgetAttempt(addressKey, at);
      return {
        ok: true,
        organization: { id: user.organizationId, name: user.organizationName },
        user: { id: user.id, email: user.email },
        sessionToken: await startSession(user.id, user.organizationId),
      };
    },

    /** Forgets failed log-ins and sign-ups older than they are remembered; returns how many. */
    pruneLoginFailures(signal?: AbortSignal): Promise<number> {
      const before = new Date(now().getTime() - LOGIN_MEMORY_MS);
      return pruneInBatches((limit) => repository.pruneAttempts(before, limit), signal);
    },

    async logout(sessionToken: string): Promise<void> {
      await repository.deleteSession(sha256Hex(sessionToken));
    },

    /**
     * Who is calling: an organization API key (`Authorization: Bearer`), else the session cookie.
     * A `bearer` given at all (`''` for an `Authorization` header that is not a Bearer key) rules
     * the cookie out.
     */
    async authenticate(credentials: { bearer?: string; sessionToken?: string }): Promise<Principal | undefined> {
      if (credentials.bearer !== undefined) {
        return credentials.bearer ? apiKeyPrincipals.get(sha256Hex(credentials.bearer)) : undefined;
      }
      if (credentials.sessionToken)
        return repository.findPrincipalBySession(sha256Hex(credentials.sessionToken), now());
      return undefined;
    },

    async me(principal: Principal) {
      const organization = await repository.findOrganization(principal.organizationId);
      const user = principal.userId ? await repository.findUser(principal.userId) : undefined;
      return {
        organization: organization ? { id: organization.id, name: organization.name } : null,
        user: user ? { id: user.id, email: user.email } : null,
      };
    },

    async createApiKey(organizationId: string, name: string): Promise<ApiKeyView & { key: string }> {
      const issued = issueApiKey(organizationId, name.trim());
      const row = await repository.insertApiKey(issued.row);
      return { ...viewApiKey(row), key: issued.key };
    },

    async listApiKeys(organizationId: string): Promise<ApiKeyView[]> {
      return (await repository.listApiKeys(organizationId)).map(viewApiKey);
    },

    /** Revokes the key; every process stops accepting it before this returns (this one) or as it hears of it (the others). */
    async revokeApiKey(organizationId: string, id: string): Promise<boolean> {
      const keyHash = await repository.revokeApiKey(organizationId, id, now());
      if (keyHash === undefined) return false;
      await changes?.publish(API_KEY_TOPIC, keyHash);
      return true;
    },
  };
}

export type AuthService = ReturnType<typeof createAuthService>;
