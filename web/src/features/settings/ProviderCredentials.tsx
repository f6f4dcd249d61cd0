import { type FormEvent, useState } from 'react';
import { api, type Page, type ProviderCredential, SECRET_MASK } from '../../api.js';
import { ConfirmButton, Field, FormList, formatTime, SaveBar, SecretInput, useAction, useLoad } from '../../ui.js';

/** Vapi and Retell accounts agents can run on. Secrets are write-only: they read back masked. */
export function ProviderCredentials() {
  const list = useLoad(() => api<Page<ProviderCredential>>('GET', '/v1/provider-credentials?limit=100'), '');
  return (
    <FormList
      label="Provider credentials"
      title={<h2>Provider credentials</h2>}
      addLabel="Add credential"
      what="provider credentials"
      load={list}
      empty="No provider credentials. Agents on the built-in simulator need none; to place real calls, add your Vapi or Retell API key here and choose it on an agent."
      renderItem={(credential) => <CredentialForm credential={credential} onChanged={list.reload} />}
      renderNew={({ saved, cancel }) => <CredentialForm onChanged={saved} onCancel={cancel} />}
    />
  );
}

function CredentialForm({
  credential,
  onChanged,
  onCancel,
}: {
  credential?: ProviderCredential;
  onChanged: () => void;
  onCancel?: () => void;
}) {
  const [provider, setProvider] = useState<'vapi' | 'retell'>(credential?.provider ?? 'vapi');
  const [name, setName] = useState(credential?.name ?? '');
  const [apiKey, setApiKey] = useState(credential?.apiKey ?? '');
  const [webhookSecret, setWebhookSecret] = useState(credential?.webhookSecret ?? '');
  const [baseUrl, setBaseUrl] = useState(credential?.baseUrl ?? '');
  const [saved, setSaved] = useState(false);
  const save = useAction();
  const remove = useAction();
  const revoke = useAction();

  async function submit(event: FormEvent) {
    event.preventDefault();
    const fields = {
      name,
      apiKey,
      ...(webhookSecret ? { webhookSecret } : credential?.webhookSecret ? { webhookSecret: null } : {}),
      ...(baseUrl ? { baseUrl } : credential?.baseUrl ? { baseUrl: null } : {}),
    };
    const result = await save.run(() =>
      credential
        ? api('PATCH', `/v1/provider-credentials/${credential.id}`, fields)
        : api('POST', '/v1/provider-credentials', { provider, ...fields }),
    );
    if (result) {
      setSaved(true);
      onChanged();
    }
  }

  return (
    <form
      className="nested"
      onSubmit={submit}
      aria-label={`Provider credential ${credential?.name ?? 'new'}`}
      noValidate
    >
      <div className="grid">
        <Field label="Provider" path="$.provider" failure={save.failure}>
          {(id) => (
            <select
              id={id}
              value={provider}
              disabled={credential !== undefined}
              onChange={(e) => setProvider(e.target.value as 'vapi' | 'retell')}
            >
              <option value="vapi">Vapi</option>
              <option value="retell">Retell</option>
            </select>
          )}
        </Field>
        <Field label="Name" path="$.name" failure={save.failure}>
          {(id) => <input id={id} value={name} onChange={(e) => setName(e.target.value)} />}
        </Field>
        <Field
          label="API key"
          path="$.apiKey"
          failure={save.failure}
          hint={
            credential?.apiKeyLast4
              ? `Stored key ends in …${credential.apiKeyLast4}. Type a new one to replace it; a base URL on another host needs it again.`
              : undefined
          }
        >
          {(id) => <SecretInput id={id} value={apiKey} onChange={setApiKey} />}
        </Field>
        <Field
          label="Webhook secret"
          path="$.webhookSecret"
          failure={save.failure}
          hint={
            provider === 'vapi'
              ? 'Vapi sends it back as x-vapi-secret; left empty, one is generated. A new one does not cut off the old at once: calls under way may still send it.'
              : 'Optional for Retell, which signs with the API key.'
          }
        >
          {(id) => (
            <SecretInput
              id={id}
              value={webhookSecret}
              placeholder={credential?.webhookSecret === SECRET_MASK ? SECRET_MASK : ''}
              onChange={setWebhookSecret}
            />
          )}
        </Field>
        <Field label="Base URL" path="$.baseUrl" failure={save.failure} hint="Optional: the provider's API address.">
          {(id) => <input id={id} value={baseUrl} onChange={(e) => setBaseUrl(e.target.value)} />}
        </Field>
      </div>
      {credential?.previousWebhookSecretExpiresAt && (
        <div className="hint" data-testid="previous-webhook-secret">
          The previous webhook secret also opens the webhook until{' '}
          {formatTime(credential.previousWebhookSecretExpiresAt)}, for calls under way.{' '}
          <ConfirmButton
            label="Revoke previous secret"
            question="Reports of calls that still send it will be refused. Revoke it now?"
            confirmLabel="Yes, revoke"
            danger
            busy={revoke.busy}
            onConfirm={async () => {
              const revoked = await revoke.run(() =>
                api('PATCH', `/v1/provider-credentials/${credential.id}`, { previousWebhookSecretExpiresAt: null }),
              );
              if (revoked !== undefined) onChanged();
            }}
          />
        </div>
      )}
      <SaveBar failure={save.failure ?? remove.failure ?? revoke.failure} saved={saved} busy={save.busy}>
        {credential ? (
          <ConfirmButton
            label="Delete"
            question="Delete this credential? Agents using it must be moved first."
            confirmLabel="Yes, delete"
            danger
            busy={remove.busy}
            onConfirm={async () => {
              if ((await remove.run(() => api('DELETE', `/v1/provider-credentials/${credential.id}`))) !== undefined)
                onChanged();
            }}
          />
        ) : (
          <button type="button" className="secondary" onClick={onCancel}>
            Cancel
          </button>
        )}
      </SaveBar>
    </form>
  );
}
