import { useCallback, useEffect, useState } from 'react';
import { type Agent, ApiFailure, api, type Me } from './api.js';
import { SignIn } from './SignIn.js';

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

  if (me === undefined) return <main aria-busy="true">Loading…</main>;
  if (me === null) return <SignIn onSignedIn={refresh} />;
  return (
    <>
      <header>
        <strong>Switchboard · {me.organization.name}</strong>
        <span>
          {me.user.email}
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
        <Agents />
      </main>
    </>
  );
}

function Agents() {
  const [agents, setAgents] = useState<Agent[] | undefined>(undefined);
  useEffect(() => {
    api<{ data: Agent[] }>('GET', '/v1/agents?limit=100').then((page) => setAgents(page.data));
  }, []);
  if (!agents) return <p aria-busy="true">Loading agents…</p>;
  return (
    <section className="card">
      <h2>Agents</h2>
      {agents.length === 0 ? (
        <p className="empty">
          No agents yet. An agent places calls for you: create one with <code>POST /v1/agents</code> (the editor arrives
          with the next part of the dashboard).
        </p>
      ) : (
        <table>
          <thead>
            <tr>
              <th>Name</th>
              <th>Type</th>
              <th>Provider</th>
              <th>State</th>
            </tr>
          </thead>
          <tbody>
            {agents.map((agent) => (
              <tr key={agent.id}>
                <td>{agent.name}</td>
                <td>{agent.type === 'click_to_call' ? 'Click to Call' : agent.type}</td>
                <td>{agent.provider}</td>
                <td>{!agent.enabled ? 'disabled' : !agent.configured ? 'not configured' : agent.providerSync.state}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
