import { type FormEvent, useState } from 'react';
import { ApiFailure, api } from '../../api.js';

/** Log in (the seed's words: Email, Password, Log in), or sign up a new organization. */
export function SignIn({ onSignedIn }: { onSignedIn: () => Promise<void> }) {
  const [mode, setMode] = useState<'login' | 'signup'>('login');
  const [failure, setFailure] = useState<ApiFailure | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const fields = Object.fromEntries([...form.entries()].map(([k, v]) => [k, String(v)]));
    setBusy(true);
    setFailure(null);
    try {
      await api('POST', mode === 'login' ? '/v1/login' : '/v1/signup', fields);
      await onSignedIn();
    } catch (error) {
      setFailure(error instanceof ApiFailure ? error : new ApiFailure(0, 'network', String(error)));
    } finally {
      setBusy(false);
    }
  }

  const problem = (path: string) =>
    failure?.at(path) ? (
      <div className="error" role="alert">
        {failure.at(path)}
      </div>
    ) : null;

  return (
    <form className="card" onSubmit={submit} aria-busy={busy}>
      <h1>{mode === 'login' ? 'Log in to Switchboard' : 'Create your organization'}</h1>
      {mode === 'signup' && (
        <>
          <label htmlFor="organization">Organization</label>
          <input id="organization" name="organization" required autoComplete="organization" />
          {problem('$.organization')}
        </>
      )}
      <label htmlFor="email">Email</label>
      <input id="email" name="email" type="email" required autoComplete="email" />
      {problem('$.email')}
      <label htmlFor="password">Password</label>
      <input
        id="password"
        name="password"
        type="password"
        required
        autoComplete={mode === 'login' ? 'current-password' : 'new-password'}
      />
      {problem('$.password')}
      {failure && failure.details.length === 0 && (
        <div className="error" role="alert">
          {failure.message}
        </div>
      )}
      <button type="submit" disabled={busy}>
        {mode === 'login' ? 'Log in' : 'Sign up'}
      </button>
      <p>
        {mode === 'login' ? 'New here?' : 'Have an account?'}
        <button type="button" className="link" onClick={() => setMode(mode === 'login' ? 'signup' : 'login')}>
          {mode === 'login' ? 'Sign up' : 'Log in instead'}
        </button>
      </p>
    </form>
  );
}
