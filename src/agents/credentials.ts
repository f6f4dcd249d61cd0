import { randomToken, type SecretBox, sha256Hex } from '../lib/crypto.js';

/**
 * Click-to-call credentials of one agent.
 *
 * The API token is derived, not stored: `ctc_` + HMAC(master key, agentId.nonce). The database
 * keeps the nonce and the token's SHA-256 (the lookup key), so the token can be shown again in the
 * dashboard while a copy of the database alone reveals neither token nor secret. The API secret
 * is random and kept as AES-256-GCM ciphertext bound to the agent id.
 */
export interface IssuedCredentials {
  apiToken: string;
  apiSecret: string;
  columns: { apiTokenHash: string; apiTokenNonce: string; apiSecretSealed: string };
}

export function deriveApiToken(box: SecretBox, agentId: string, nonce: string): string {
  return `ctc_${box.derive('agent-api-token', `${agentId}.${nonce}`)}`;
}

/** What the agents table keeps of a click-to-call token, and what a request's token is looked up by. */
export const apiTokenHash = (apiToken: string): string => sha256Hex(apiToken);

export function issueCredentials(box: SecretBox, agentId: string): IssuedCredentials {
  const nonce = randomToken(16);
  const apiToken = deriveApiToken(box, agentId, nonce);
  const apiSecret = `ctcs_${randomToken(32)}`;
  return {
    apiToken,
    apiSecret,
    columns: {
      apiTokenHash: apiTokenHash(apiToken),
      apiTokenNonce: nonce,
      apiSecretSealed: box.encrypt(apiSecret, agentId),
    },
  };
}

export interface Instructions {
  text: string;
  examples: { curl: string; node: string; python: string };
}

/**
 * Ready-to-paste examples that sign the exact bytes they send, in the timestamped form (decision
 * 0031): it passes whether or not the agent requires `signature-timestamp`.
 */
export function buildInstructions(input: {
  endpoint: string;
  apiToken: string;
  apiSecret: string;
  variables: string[];
  signatureRequired: boolean;
  timestampRequired: boolean;
}): Instructions {
  const { endpoint, apiToken, apiSecret } = input;
  const variables = Object.fromEntries(
    (input.variables.length > 0 ? input.variables : ['name']).map((name) => [name, name === 'name' ? 'Ada' : '']),
  );
  const body = JSON.stringify({ phone: '+14155550123', variables });
  const curl = [
    `API_TOKEN='${apiToken}'`,
    `API_SECRET='${apiSecret}'`,
    `BODY='${body.replace(/'/g, `'\\''`)}'`,
    `TIMESTAMP=$(date +%s)`,
    `SIGNATURE=$(printf '%s.%s' "$TIMESTAMP" "$BODY" | openssl dgst -sha256 -hmac "$API_SECRET" | sed 's/^.*= //')`,
    `curl -sS -X POST '${endpoint}' \\`,
    `  -H 'Content-Type: application/json' \\`,
    `  -H "api-key: $API_TOKEN" \\`,
    `  -H "signature-timestamp: $TIMESTAMP" \\`,
    `  -H "signature: $SIGNATURE" \\`,
    `  --data-raw "$BODY"`,
  ].join('\n');
  const node = [
    `import { createHmac } from 'node:crypto';`,
    '',
    `const apiToken = '${apiToken}';`,
    `const apiSecret = '${apiSecret}';`,
    `// Sign the exact string you send: serialise once, then sign and send that same string.`,
    `const body = JSON.stringify(${body});`,
    `const timestamp = String(Math.floor(Date.now() / 1000));`,
    `const signature = createHmac('sha256', apiSecret).update(timestamp + '.' + body).digest('hex');`,
    `const response = await fetch('${endpoint}', {`,
    `  method: 'POST',`,
    `  headers: { 'Content-Type': 'application/json', 'api-key': apiToken, 'signature-timestamp': timestamp, signature },`,
    `  body,`,
    `});`,
    `console.log(response.status, await response.text());`,
  ].join('\n');
  const python = [
    'import hashlib, hmac, json, time, urllib.error, urllib.request',
    '',
    `api_token = "${apiToken}"`,
    `api_secret = "${apiSecret}"`,
    '# Sign the exact bytes you send: serialise once, then sign and send those bytes.',
    `body = json.dumps(${body}).encode("utf-8")`,
    'timestamp = str(int(time.time()))',
    'signature = hmac.new(api_secret.encode("utf-8"), timestamp.encode("ascii") + b"." + body, hashlib.sha256).hexdigest()',
    'request = urllib.request.Request(',
    `    "${endpoint}",`,
    '    data=body,',
    '    method="POST",',
    '    headers={',
    '        "Content-Type": "application/json",',
    '        "api-key": api_token,',
    '        "signature-timestamp": timestamp,',
    '        "signature": signature,',
    '    },',
    ')',
    'try:',
    '    with urllib.request.urlopen(request) as response:',
    '        print(response.status, response.read().decode("utf-8"))',
    'except urllib.error.HTTPError as error:',
    '    print(error.code, error.read().decode("utf-8"))',
  ].join('\n');
  const text = [
    `Send POST ${endpoint} from your backend (never from a browser: the secret must stay private).`,
    `Headers: "api-key: <API Token>", "Content-Type: application/json", "signature-timestamp": the current Unix time in seconds, and "signature": the lowercase hex HMAC-SHA256 of the timestamp, a dot and the exact request body (timestamp + "." + body), keyed with the API Secret.${input.signatureRequired ? '' : ' Signature verification is disabled for this agent, so both signature headers are optional.'}`,
    ...(input.signatureRequired
      ? [
          `A timestamp more than 5 minutes from the server's clock is refused (ctc:006), so a captured request cannot be replayed later: sign each request as you send it, from a clock kept in sync. ${input.timestampRequired ? 'This agent requires signature-timestamp (ctc:001 without it).' : 'This agent also accepts the signature of the body alone, without signature-timestamp; turn on "Require signature timestamp" to refuse that.'}`,
        ]
      : []),
    `Body: {"phone": "+E.164 number", "variables": {"name": "value", …}}. Variables are strings; reference them in the prompt or first message as {{name}}. Send optional variables as "" rather than leaving them out.`,
    'Add an "Idempotency-Key" header to make a retried request return the first answer instead of placing a second call. Within the 5 minutes the same signed request is accepted again; the Idempotency-Key is what makes a repeat (or a replay) place no second call.',
    '',
    'curl:',
    curl,
    '',
    'Node.js 18+ (save as call.mjs):',
    node,
    '',
    'Python 3:',
    python,
  ].join('\n');
  return { text, examples: { curl, node, python } };
}
