import { Component, type ReactNode, useCallback, useEffect, useId, useRef, useState } from 'react';
import { ApiFailure, api, type Me } from './api.js';
import { AgentEditor } from './features/agents/AgentEditor.js';
import { AgentsPage } from './features/agents/AgentsPage.js';
import { CallDetail } from './features/calls/CallDetail.js';
import { CallsPage } from './features/calls/CallsPage.js';
import { DeliveriesPage } from './features/calls/Deliveries.js';
import { CampaignNew } from './features/campaigns/CampaignNew.js';
import { CampaignPage } from './features/campaigns/CampaignPage.js';
import { CampaignsPage } from './features/campaigns/CampaignsPage.js';
import { OverviewPage } from './features/overview/OverviewPage.js';
import { PhoneNumbersPage } from './features/phone-numbers/PhoneNumbersPage.js';
import { DoNotCallPage } from './features/settings/do-not-call.js';
import { SettingsPage } from './features/settings/SettingsPage.js';
import { SignIn } from './features/settings/SignIn.js';
import { ToolEditor } from './features/tools/ToolEditor.js';
import { ToolsPage } from './features/tools/ToolsPage.js';
import { Link, match, navigate, useLocation } from './router.js';

const SECTIONS = [
  { path: '/overview', label: 'Overview' },
  { path: '/agents', label: 'Agents' },
  { path: '/tools', label: 'Tools' },
  { path: '/calls', label: 'Calls' },
  { path: '/campaigns', label: 'Campaigns' },
  { path: '/phone-numbers', label: 'Phone numbers' },
  { path: '/settings', label: 'Settings' },
];

/** Where `/` and a fresh log-in land: the results at a glance. */
const LANDING = '/overview';

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
      <Header me={me} path={path} onLoggedOut={() => setMe(null)} />
      <main>
        <ScreenFailure key={path}>
          <Screen path={path} me={me} />
        </ScreenFailure>
      </main>
    </>
  );
}

/**
 * The organization, the sections and who is signed in. On a phone's width the sections fold behind a
 * "Menu" button (a disclosure: `aria-expanded` on the button, `aria-controls` naming the list), so
 * the header keeps to one line with Log out always in reach (decision 0044).
 */
function Header({ me, path, onLoggedOut }: { me: Me; path: string; onLoggedOut: () => void }) {
  const [open, setOpen] = useState(false);
  const menuId = useId();
  const toggle = useRef<HTMLButtonElement>(null);
  // A section chosen from the menu closes it: the page it opens is what the person wanted to see.
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new path is what closes the menu
  useEffect(() => setOpen(false), [path]);
  return (
    <header className={open ? 'menu-open' : undefined}>
      <strong className="brand" title={me.organization?.name}>
        Switchboard · {me.organization?.name}
      </strong>
      <button
        type="button"
        ref={toggle}
        className="menu-toggle"
        aria-expanded={open}
        aria-controls={menuId}
        onClick={() => setOpen(!open)}
        onKeyDown={(event) => {
          if (event.key === 'Escape') setOpen(false);
        }}
      >
        Menu
      </button>
      <nav
        id={menuId}
        aria-label="Sections"
        onKeyDown={(event) => {
          // Escape from inside the open menu closes it and gives the focus back to its button.
          if (event.key === 'Escape' && open) {
            setOpen(false);
            toggle.current?.focus();
          }
        }}
      >
        {SECTIONS.map((section) => (
          <Link key={section.path} to={section.path} className={path.startsWith(section.path) ? 'active' : undefined}>
            {section.label}
          </Link>
        ))}
      </nav>
      <span className="account">
        <span className="account-email" title={me.user?.email}>
          {me.user?.email}
        </span>
        <button
          type="button"
          onClick={async () => {
            await api('POST', '/v1/logout');
            onLoggedOut();
          }}
        >
          Log out
        </button>
      </span>
    </header>
  );
}

/**
 * A screen that fails while it renders says so in its place, and the header stays: the person can
 * still go elsewhere. Keyed by the path, so another page starts afresh.
 */
class ScreenFailure extends Component<{ children: ReactNode }, { error: Error | null }> {
  state: { error: Error | null } = { error: null };
  static getDerivedStateFromError(error: Error) {
    return { error };
  }
  render() {
    const { error } = this.state;
    if (!error) return this.props.children;
    return (
      <section className="card">
        <h2>This page could not be shown</h2>
        <div className="error banner" role="alert">
          {error.message}
        </div>
        <p>
          Reload the page to try again, or <Link to={LANDING}>go to the overview</Link>.
        </p>
      </section>
    );
  }
}

/** Each screen by its path; more specific patterns first. Screens with an id are keyed by it, so they reload. */
const ROUTES: [string, (params: Record<string, string>, me: Me) => ReactNode][] = [
  ['/overview', () => <OverviewPage />],
  ['/agents/new', () => <AgentEditor key="new" />],
  ['/agents/:id', ({ id }) => <AgentEditor key={id} id={id} />],
  ['/agents', () => <AgentsPage />],
  ['/tools/new', () => <ToolEditor key="new" />],
  ['/tools/:id', ({ id }) => <ToolEditor key={id} id={id} />],
  ['/tools', () => <ToolsPage />],
  ['/calls/:id', ({ id }) => <CallDetail key={id} id={id} />],
  ['/calls', () => <CallsPage />],
  ['/campaigns/new', () => <CampaignNew key="new" />],
  ['/campaigns/:id', ({ id }) => <CampaignPage key={id} id={id ?? ''} />],
  ['/campaigns', () => <CampaignsPage />],
  ['/deliveries', () => <DeliveriesPage />],
  ['/phone-numbers', () => <PhoneNumbersPage />],
  ['/settings/do-not-call', () => <DoNotCallPage />],
  ['/settings', (_, me) => <SettingsPage me={me} />],
];

function Screen({ path, me }: { path: string; me: Me }) {
  if (path === '/' || path === '') {
    navigate(LANDING, { replace: true });
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
        This page does not exist. <Link to={LANDING}>Go to the overview</Link>.
      </p>
    </section>
  );
}
