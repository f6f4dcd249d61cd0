import { randomToken, sha256Hex } from '../lib/crypto.js';
import { newId } from '../lib/ids.js';
import { DUMMY_PASSWORD_HASH, hashPassword, verifyPassword } from '../lib/password.js';
import type { ApiKeyRow, AuthRepository, Principal } from './auth.repository.js';

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
  | { ok: false; reason: 'signup_closed' | 'email_taken' };

export type LoginResult =
  | { ok: true; organization: { id: string; name: string }; user: { id: string; email: string }; sessionToken: string }
  | { ok: false; reason: 'invalid' }
  | { ok: false; reason: 'rate_limited'; retryAfterSeconds: number };

/**
 * The log-in rate limit (decision 0024): failed attempts counted per fixed 15-minute window, per
 * account and per client address. Ten wrong passwords lock an email for the rest of its window,
 * whoever tries; a hundred failures from one address lock that address, whichever emails it tries.
 */
export const LOGIN_WINDOW_MS = 15 * 60 * 1000;
export const LOGIN_FAILURES_PER_EMAIL = 10;
export const LOGIN_FAILURES_PER_ADDRESS = 100;

export interface ApiKeyView {
  id: string;
  name: string;
  /** The first characters of the key, enough to recognise it; the key itself is shown once. */
  prefix: string;
  createdAt: string;
}

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

export function createAuthService(deps: { repository: AuthRepository; signup: 'open' | 'closed'; now?: () => Date }) {
  const { repository } = deps;
  const now = deps.now ?? (() => new Date());

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
    async signup(input: SignupInput): Promise<SignupResult> {
      if (deps.signup === 'closed') return { ok: false, reason: 'signup_closed' };
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
      const at = now().getTime();
      const windowStart = new Date(at - (at % LOGIN_WINDOW_MS));
      const emailKey = `email:${input.email.trim().toLowerCase()}`;
      const addressKey = `ip:${client.address}`;
      const failures = await repository.loginFailureCounts([emailKey, addressKey], windowStart);
      if (
        (failures.get(emailKey) ?? 0) >= LOGIN_FAILURES_PER_EMAIL ||
        (failures.get(addressKey) ?? 0) >= LOGIN_FAILURES_PER_ADDRESS
      ) {
        // Refused before the password is checked: a locked account tells nothing about guesses.
        return {
          ok: false,
          reason: 'rate_limited',
          retryAfterSeconds: Math.ceil((windowStart.getTime() + LOGIN_WINDOW_MS - at) / 1000),
        };
      }
      const user = await repository.findUserByEmail(input.email.trim());
      // Verify against a dummy hash when no user matched, so timing does not reveal which emails exist.
      const valid = await verifyPassword(input.password, user?.passwordHash ?? DUMMY_PASSWORD_HASH);
      if (!user || !valid) {
        await repository.recordLoginFailure([emailKey, addressKey], windowStart);
        return { ok: false, reason: 'invalid' };
      }
      await repository.clearLoginFailures(emailKey);
      return {
        ok: true,
        organization: { id: user.organizationId, name: user.organizationName },
        user: { id: user.id, email: user.email },
        sessionToken: await startSession(user.id, user.organizationId),
      };
    },

    /** Forgets failed log-ins of windows that are over. */
    async pruneLoginFailures(): Promise<void> {
      await repository.pruneLoginFailures(new Date(now().getTime() - LOGIN_WINDOW_MS));
    },

    async logout(sessionToken: string): Promise<void> {
      await repository.deleteSession(sha256Hex(sessionToken));
    },

    /** Who is calling: an organization API key (`Authorization: Bearer`) first, else the session cookie. */
    async authenticate(credentials: { bearer?: string; sessionToken?: string }): Promise<Principal | undefined> {
      if (credentials.bearer) return repository.findPrincipalByApiKey(sha256Hex(credentials.bearer));
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
      const issued = issueApiKey(organizationId, name);
      const row = await repository.insertApiKey(issued.row);
      return { ...viewApiKey(row), key: issued.key };
    },

    async listApiKeys(organizationId: string): Promise<ApiKeyView[]> {
      return (await repository.listApiKeys(organizationId)).map(viewApiKey);
    },

    revokeApiKey(organizationId: string, id: string): Promise<boolean> {
      return repository.revokeApiKey(organizationId, id, now());
    },
  };
}

export type AuthService = ReturnType<typeof createAuthService>;
