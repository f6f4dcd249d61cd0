import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Org, startTestApp, type TestApp } from './helpers/app.js';

let t: TestApp;
let org: Org;
let other: Org;
beforeAll(async () => {
  t = await startTestApp();
  org = await t.signup();
  other = await t.signup();
});
afterAll(() => t.close());

const create = (body: Record<string, unknown>, as: Org = org) =>
  t.request('POST', '/v1/provider-credentials', { headers: as.auth, body });

let named = 0;
const vapi = (extra: Record<string, unknown> = {}) =>
  create({ provider: 'vapi', name: `Vapi ${++named}`, apiKey: 'vapi_private_key_abcd', ...extra });

describe('provider credentials', () => {
  it('creates, lists, reads, updates and deletes one; secrets are sealed at rest and read back masked', async () => {
    const created = await vapi({ webhookSecret: 'whs_very_secret_and_long_enough', baseUrl: 'http://127.0.0.1:9999/' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^pcr_/),
      provider: 'vapi',
      name: expect.stringMatching(/^Vapi /),
      apiKey: '••••••',
      apiKeyLast4: 'abcd',
      webhookSecret: '••••••',
      previousWebhookSecretExpiresAt: null,
      baseUrl: 'http://127.0.0.1:9999',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const id = created.body.id;
    const stored = await t.db.database.db.execute(`select * from provider_credentials where id = '${id}'`);
    const text = JSON.stringify((stored as unknown as { rows: unknown[] }).rows);
    expect(text).not.toContain('vapi_private_key_abcd');
    expect(text).not.toContain('whs_very_secret_and_long_enough');

    expect((await t.request('GET', `/v1/provider-credentials/${id}`, { headers: org.auth })).body).toEqual(
      created.body,
    );
    const list = await t.request('GET', '/v1/provider-credentials', { headers: org.auth });
    expect(list.body.data.map((c: { id: string }) => c.id)).toContain(id);

    // The mask written back keeps the secret; a new key replaces it; a Vapi credential always has a
    // webhook secret (null makes a new one), since we publish it for Vapi to send back.
    const kept = await t.request('PATCH', `/v1/provider-credentials/${id}`, {
      headers: org.auth,
      body: { apiKey: '••••••', webhookSecret: '••••••', name: 'Renamed' },
    });
    expect(kept.body).toMatchObject({ name: 'Renamed', apiKeyLast4: 'abcd', webhookSecret: '••••••' });
    const replaced = await t.request('PATCH', `/v1/provider-credentials/${id}`, {
      headers: org.auth,
      body: { apiKey: 'another_key_wxyz', webhookSecret: null, baseUrl: null },
    });
    expect(replaced.body).toMatchObject({ apiKeyLast4: 'wxyz', webhookSecret: '••••••', baseUrl: null });
    // The replaced secret is kept for 24 hours (decision 0096), sealed like the current one.
    expect(replaced.body.previousWebhookSecretExpiresAt).toEqual(expect.any(String));
    const after = await t.db.database.db.execute(`select * from provider_credentials where id = '${id}'`);
    const afterText = JSON.stringify((after as unknown as { rows: unknown[] }).rows);
    expect(afterText).toContain('"previous_webhook_secret_sealed":"v1.');
    expect(afterText).not.toContain('whs_very_secret_and_long_enough');
    const generated = await vapi();
    expect(generated.body.webhookSecret).toBe('••••••');
    const retell = await create({ provider: 'retell', name: `Retell ${++named}`, apiKey: 'key_retell_1111' });
    expect(retell.body.webhookSecret).toBeNull();

    expect((await t.request('DELETE', `/v1/provider-credentials/${id}`, { headers: org.auth })).status).toBe(204);
    expect((await t.request('GET', `/v1/provider-credentials/${id}`, { headers: org.auth })).status).toBe(404);
  });

  it('keeps secrets for the mask only while the base URL keeps its origin; the mask stands for nothing new', async () => {
    const mask = '••••••';
    const patch = (id: string, body: Record<string, unknown>) =>
      t.request('PATCH', `/v1/provider-credentials/${id}`, { headers: org.auth, body });
    const stored = async (id: string) =>
      JSON.stringify(
        (
          (await t.db.database.db.execute(
            `select api_key_sealed, webhook_secret_sealed, base_url from provider_credentials where id = '${id}'`,
          )) as unknown as { rows: unknown[] }
        ).rows,
      );
    const noSecret = (path: string) => ({ path, message: expect.stringMatching(/no secret/) });
    const giveAgain = (path: string) => ({ path, message: expect.stringMatching(/given again/) });

    const maskedKey = await vapi({ apiKey: mask });
    expect(maskedKey.status).toBe(422);
    expect(maskedKey.body.details).toEqual([noSecret('$.apiKey')]);
    const maskedSecret = await vapi({ webhookSecret: mask });
    expect(maskedSecret.body.details).toEqual([noSecret('$.webhookSecret')]);

    const { id } = (await vapi({ webhookSecret: 'whs_first_0123456789abcdefgh', baseUrl: 'http://127.0.0.1:9999' }))
      .body;
    const before = await stored(id);
    const refusals: [Record<string, unknown>, string[]][] = [
      [{ baseUrl: 'http://127.0.0.1:9998' }, ['$.apiKey', '$.webhookSecret']],
      [{ baseUrl: null, apiKey: mask, webhookSecret: mask }, ['$.apiKey', '$.webhookSecret']],
      [{ baseUrl: 'https://evil.example.com', apiKey: 'new_key_1111' }, ['$.webhookSecret']],
      [{ baseUrl: 'https://127.0.0.1:9999', webhookSecret: 'whs_new_0123456789abcdefghij' }, ['$.apiKey']],
    ];
    for (const [body, paths] of refusals) {
      const refused = await patch(id, body);
      expect(refused.status, JSON.stringify(body)).toBe(422);
      expect(refused.body.details, JSON.stringify(body)).toEqual(paths.map(giveAgain));
    }
    expect(await stored(id)).toBe(before);

    // Another path on the same origin keeps both.
    const samePlace = await patch(id, { baseUrl: 'http://127.0.0.1:9999/v2', apiKey: mask, webhookSecret: mask });
    expect(samePlace.status).toBe(200);
    expect(samePlace.body).toMatchObject({ baseUrl: 'http://127.0.0.1:9999/v2', apiKeyLast4: 'abcd' });
    // Given again (null makes a new Vapi webhook secret), both change with the origin.
    const sealedSecret = (await stored(id)).match(/"webhook_secret_sealed":"([^"]+)"/)?.[1];
    const given = await patch(id, { baseUrl: 'http://127.0.0.1:9998', apiKey: 'new_key_2222', webhookSecret: null });
    expect(given.status).toBe(200);
    expect(given.body).toMatchObject({ baseUrl: 'http://127.0.0.1:9998', apiKeyLast4: '2222', webhookSecret: mask });
    expect(await stored(id)).not.toContain(sealedSecret);

    // A Retell credential with no webhook secret: only the key is asked for; a masked secret is refused.
    const retell = await create({ provider: 'retell', name: `Retell ${++named}`, apiKey: 'key_retell_5555' });
    expect((await patch(retell.body.id, { baseUrl: 'http://127.0.0.1:9998' })).body.details).toEqual([
      giveAgain('$.apiKey'),
    ]);
    expect((await patch(retell.body.id, { webhookSecret: mask })).body.details).toEqual([noSecret('$.webhookSecret')]);
  });

  it('refuses bad input with one path per problem, and changes nothing', async () => {
    const bad = await create({ provider: 'twilio', name: '', apiKey: 'x\ny' });
    expect(bad.status).toBe(422);
    const paths = bad.body.details.map((d: { path: string }) => d.path);
    expect(paths).toEqual(expect.arrayContaining(['$.provider', '$.name', '$.apiKey']));
    const badUrl = await vapi({ baseUrl: 'ftp://example.com' });
    expect(badUrl.status).toBe(422);
    expect(badUrl.body.details[0].path).toBe('$.baseUrl');
    const created = await vapi();
    const provider = await t.request('PATCH', `/v1/provider-credentials/${created.body.id}`, {
      headers: org.auth,
      body: { provider: 'retell' },
    });
    expect(provider.status).toBe(422);
    const taken = await create({ provider: 'retell', name: created.body.name, apiKey: 'key_1234' });
    expect(taken.status).toBe(409);
    expect(taken.body.details).toEqual([{ path: '$.name', message: expect.any(String) }]);
  });

  it('refuses a name of spaces like an empty one at $.name, and stores names trimmed', async () => {
    const blank = await vapi({ name: '   ' });
    expect(blank.status).toBe(422);
    expect(blank.body.details).toEqual([{ path: '$.name', message: 'must contain a character other than spaces' }]);
    const created = await vapi({ name: '  Vapi trimmed  ' });
    expect(created.status).toBe(201);
    expect(created.body.name).toBe('Vapi trimmed');
    const patch = (name: string) =>
      t.request('PATCH', `/v1/provider-credentials/${created.body.id}`, { headers: org.auth, body: { name } });
    expect((await patch(' ')).status).toBe(422);
    expect((await patch(' Vapi renamed ')).body.name).toBe('Vapi renamed');
  });

  it('lets an agent use only its organization’s credential for the same provider', async () => {
    const mine = await vapi();
    const theirs = await create({ provider: 'vapi', name: 'Theirs', apiKey: 'k_0000' }, other);
    const retell = await create({ provider: 'retell', name: `Retell ${++named}`, apiKey: 'key_retell_9876' });
    const agent = (body: Record<string, unknown>) =>
      t.request('POST', '/v1/agents', {
        headers: org.auth,
        body: { name: 'Real', fromNumber: '+14155550100', ...body },
      });

    const ok = await agent({ provider: 'vapi', providerCredentialId: mine.body.id });
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({ providerCredentialId: mine.body.id, configured: true });
    for (const [id, message] of [
      [theirs.body.id, 'no provider credential with this id exists in the organization'],
      ['pcr_unknown', 'no provider credential with this id exists in the organization'],
      [retell.body.id, "is a retell credential; the agent's provider is vapi"],
    ]) {
      const refused = await agent({ provider: 'vapi', providerCredentialId: id });
      expect(refused.status).toBe(422);
      expect(refused.body.details).toEqual([{ path: '$.providerCredentialId', message }]);
    }
  });

  it('refuses to delete a credential a live agent uses (409); once the agent is deleted it can go', async () => {
    const credential = await vapi();
    const agent = await t.request('POST', '/v1/agents', {
      headers: org.auth,
      body: { name: 'User', provider: 'vapi', providerCredentialId: credential.body.id, fromNumber: '+14155550100' },
    });
    const refused = await t.request('DELETE', `/v1/provider-credentials/${credential.body.id}`, { headers: org.auth });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('api:conflict');
    expect(
      (await t.request('GET', `/v1/provider-credentials/${credential.body.id}`, { headers: org.auth })).status,
    ).toBe(200);
    await t.request('DELETE', `/v1/agents/${agent.body.id}`, { headers: org.auth });
    expect(
      (await t.request('DELETE', `/v1/provider-credentials/${credential.body.id}`, { headers: org.auth })).status,
    ).toBe(204);
  });
});
