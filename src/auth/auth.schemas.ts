import { Type } from '@sinclair/typebox';
import { Name } from '../lib/schema.js';
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
