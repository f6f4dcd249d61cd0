import { type ReactNode, useCallback, useEffect, useState } from 'react';
import { ApiFailure, api, type Me } from './api.js';
import { AgentEditor } from './features/agents/AgentEditor.js';
import { AgentsPage } from './features/agents/AgentsPage.js';
import { CallDetail } from './features/calls/CallDetail.js';
import { CallsPage } from './features/calls/CallsPage.js';
import { PhoneNumbersPage } from './features/phone-numbers/PhoneNumbersPage.js';
import { SettingsPage } from './features/settings/SettingsPage.js';
import { SignIn } from './features/settings/SignIn.js';
import { ToolEditor } from './features/tools/ToolEditor.js';
import { ToolsPage } from './features/tools/ToolsPage.js';
import { Link, match, navigate, useLocation } from './router.js';

const SECTIONS = [
  { path: '/agents', label: 'Agents' },
  { path: '/tools', label: 'Tools' },
  { path: '/calls', label: 'Calls' },
  { path: '/phone-numbers', label: 'Phone numbers' },
  { path: '/settings', label: 'Settings' },
];

/** The dashboard's shell: who is signed in decides between the sign-in screen and the workspace. */
export function App() {
  const [me, setMe] = useState<Me | null | undefined>(undefined);

  const refresh = useCallback(async () => {
    try {
      setMe(await api<Me>('GET', '/v1/me'));
    } catch (error) {
      if (error instanceof ApiFailure && error.status === 401) setMe(null);
      else throw error;
    }
  }, []);

  useEffect(() => {
    void refresh();
  }, [refresh]);

  const { path } = useLocation();
  if (me === undefined) return <main aria-busy="true">Loading…</main>;
  if (me === null) return <SignIn onSignedIn={refresh} />;
  return (
    <>
      <header>
        <strong>Switchboard · {me.organization?.name}</strong>
        <nav aria-label="Sections">
          {SECTIONS.map((section) => (
            <Link key={section.path} to={section.path} className={path.startsWith(section.path) ? 'active' : undefined}>
              {section.label}
            </Link>
          ))}
        </nav>
        <span>
          {me.user?.email}
          <button
            type="button"
            onClick={async () => {
              await api('POST', '/v1/logout');
              setMe(null);
            }}
          >
            Log out
          </button>
        </span>
      </header>
      <main>
        <Screen path={path} me={me} />
      </main>
    </>
  );
}

/** Each screen by its path; more specific patterns first. Screens with an id are keyed by it, so they reload. */
const ROUTES: [string, (params: Record<string, string>, me: Me) => ReactNode][] = [
  ['/agents/new', () => <AgentEditor key="new" />],
  ['/agents/:id', ({ id }) => <AgentEditor key={id} id={id} />],
  ['/agents', () => <AgentsPage />],
  ['/tools/new', () => <ToolEditor key="new" />],
  ['/tools/:id', ({ id }) => <ToolEditor key={id} id={id} />],
  ['/tools', () => <ToolsPage />],
  ['/calls/:id', ({ id }) => <CallDetail key={id} id={id} />],
  ['/calls', () => <CallsPage />],
  ['/phone-numbers', () => <PhoneNumbersPage />],
  ['/settings', (_, me) => <SettingsPage me={me} />],
];

function Screen({ path, me }: { path: string; me: Me }) {
  if (path === '/' || path === '') {
    navigate('/agents', { replace: true });
    return null;
  }
  for (const [pattern, render] of ROUTES) {
    const params = match(pattern, path);
    if (params) return render(params, me);
  }
  return (
    <section className="card">
      <h2>Nothing here</h2>
      <p>
        This page does not exist. <Link to="/agents">Go to your agents</Link>.
      </p>
    </section>
  );
}
