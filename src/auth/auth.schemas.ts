import { type Static, Type } from '@sinclair/typebox';
import { Name, Nullable, PageOf, ref, Timestamp } from '../lib/schema.js';
import { PASSWORD_MIN_LENGTH } from './password-policy.js';

export const Email = Type.String({ minLength: 3, maxLength: 254, pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$' });

export const SignupBody = Type.Object(
  {
    organization: Name(),
    email: Email,
    /** At least 10 characters and not among the most common passwords (src/auth/password-policy.ts). */
    password: Type.String({ minLength: PASSWORD_MIN_LENGTH, maxLength: 200 }),
  },
  { additionalProperties: false },
);

export const LoginBody = Type.Object(
  { email: Type.String({ minLength: 1, maxLength: 254 }), password: Type.String({ minLength: 1, maxLength: 200 }) },
  { additionalProperties: false },
);

export const CreateApiKeyBody = Type.Object({ name: Name() }, { additionalProperties: false });

export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });

export const OrganizationView = Type.Object({ id: Type.String(), name: Type.String() }, { $id: 'Organization' });
export const UserView = Type.Object({ id: Type.String(), email: Type.String() }, { $id: 'User' });

/** An organization API key as listed: its prefix, never the key (shown once, when created). */
export const ApiKeyView = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    prefix: Type.String({ description: 'The first characters of the key, enough to recognise it' }),
    createdAt: Timestamp(),
  },
  { $id: 'ApiKey' },
);
export type ApiKeyView = Static<typeof ApiKeyView>;

/** The answer that creates a key: the only one that shows it. */
export const CreatedApiKeyView = Type.Composite(
  [ApiKeyView, Type.Object({ key: Type.String({ description: 'The key itself (sb_live_…), shown once' }) })],
  { $id: 'CreatedApiKey' },
);

export const ApiKeyPage = PageOf(ref(ApiKeyView), 'ApiKeyPage');

export const SignupView = Type.Object(
  {
    organization: ref(OrganizationView),
    user: ref(UserView),
    apiKey: Type.String({ description: 'The first API key (sb_live_…), shown once' }),
  },
  { $id: 'Signup' },
);

export const LoginView = Type.Object({ organization: ref(OrganizationView), user: ref(UserView) }, { $id: 'Login' });

export const MeView = Type.Object(
  {
    organization: Nullable(ref(OrganizationView)),
    user: Nullable(ref(UserView), { description: 'null when authenticated by an API key' }),
  },
  { $id: 'Me' },
);

export const AUTH_VIEWS = [
  OrganizationView,
  UserView,
  ApiKeyView,
  CreatedApiKeyView,
  ApiKeyPage,
  SignupView,
  LoginView,
  MeView,
];
