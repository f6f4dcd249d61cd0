import type { Me } from '../../api.js';
import { Fact } from '../../ui.js';
import { ApiKeys } from './ApiKeys.js';
import { DoNotCallSection } from './do-not-call.js';
import { ProviderCredentials } from './ProviderCredentials.js';

/**
 * The organization: its name, the API keys of the management API, the voice providers' credentials,
 * and the way to its do-not-call list (`/settings/do-not-call`).
 */
export function SettingsPage({ me }: { me: Me }) {
  return (
    <>
      <section className="card">
        <h2>Organization</h2>
        <dl className="facts">
          <Fact label="Name">{me.organization?.name}</Fact>
          <Fact label="Id">
            <code>{me.organization?.id}</code>
          </Fact>
          {me.user && <Fact label="Signed in as">{me.user.email}</Fact>}
        </dl>
      </section>
      <ApiKeys />
      <ProviderCredentials />
      <DoNotCallSection />
    </>
  );
}
