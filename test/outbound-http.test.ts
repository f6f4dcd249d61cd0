import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setImmediate } from 'node:timers/promises';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { BlockedAddressError, blockedAddressReason } from '../src/lib/address-guard.js';
import {
  createOutboundClient,
  type OutboundClient,
  type OutboundClientOptions,
  type OutboundRequest,
  type OutboundResult,
} from '../src/lib/outbound-http.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

interface TestServer {
  port: number;
  url: string;
  requests: Seen[];
  /** TCP connections accepted, whether or not a request came over them. */
  connections: number;
}

const servers: Server[] = [];
const clients: OutboundClient[] = [];

async function startServer(handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<TestServer> {
  const state: TestServer = { port: 0, url: '', requests: [], connections: 0 };
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = req.headers;
    state.requests.push({
      method: req.method ?? '',
      url: req.url ?? '',
      headers,
      body: Buffer.concat(chunks).toString(),
    });
    handle(req, res);
  });
  server.on('connection', () => state.connections++);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  servers.push(server);
  state.port = (server.address() as AddressInfo).port;
  state.url = `http://127.0.0.1:${state.port}`;
  return state;
}

/** A port on 127.0.0.1 that nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function client(options: OutboundClientOptions = { allowPrivateNetworks: true }): OutboundClient {
  const created = createOutboundClient(options);
  clients.push(created);
  return created;
}

function get(url: string, extra: Partial<OutboundRequest> = {}): OutboundRequest {
  return { method: 'GET', url, headers: {}, timeoutMs: 2000, maxResponseBytes: 65_536, ...extra };
}

function failureOf(result: OutboundResult) {
  if (result.ok) throw new Error(`expected a failure, got status ${result.status}`);
  return result.failure;
}

function responseOf(result: OutboundResult) {
  if (!result.ok) throw new Error(`expected a response, got ${result.failure.kind}: ${result.failure.message}`);
  return result;
}

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    server.close();
  }
});

describe('createOutboundClient', () => {
  it('sends method, headers and body as given and returns status, headers and body', async () => {
    const server = await startServer((_req, res) => {
      res.setHeader('X-Reply', 'yes');
      res.setHeader('Set-Cookie', ['a=1', 'b=2']);
      res.setHeader('Content-Type', 'application/json');
      res.end('{"answer":42}');
    });
    const result = await client().send({
      method: 'POST',
      url: `${server.url}/tools/lookup?order=7`,
      headers: { 'content-type': 'application/json', 'X-Switchboard-Call': 'call_1' },
      body: '{"question":"where"}',
      timeoutMs: 2000,
      maxResponseBytes: 1000,
    });

    const response = responseOf(result);
    expect(response.status).toBe(200);
    expect(response.headers).toMatchObject({
      'x-reply': 'yes',
      'set-cookie': 'a=1, b=2',
      'content-type': 'application/json',
    });
    expect(response.body.toString()).toBe('{"answer":42}');
    expect(response.truncated).toBe(false);
    expect(response.latencyMs).toBeGreaterThan(0);
    expect(server.requests).toEqual([
      {
        method: 'POST',
        url: '/tools/lookup?order=7',
        headers: expect.objectContaining({
          'content-type': 'application/json',
          'x-switchboard-call': 'call_1',
          host: `127.0.0.1:${server.port}`,
        }),
        body: '{"question":"where"}',
      },
    ]);
  });

  it('returns a redirect as a response and does not follow it', async () => {
    const target = await startServer((_req, res) => res.end('followed'));
    const server = await startServer((_req, res) => {
      res.writeHead(302, { Location: `${target.url}/elsewhere` }).end();
    });
    const response = responseOf(await client().send(get(`${server.url}/start`)));
    expect(response.status).toBe(302);
    expect(response.headers.location).toBe(`${target.url}/elsewhere`);
    expect(server.requests).toHaveLength(1);
    expect(target.requests).toHaveLength(0);
  });

  it('returns a 500 as a response', async () => {
    const server = await startServer((_req, res) => res.writeHead(500).end('boom'));
    const response = responseOf(await client().send(get(server.url)));
    expect(response.status).toBe(500);
    expect(response.body.toString()).toBe('boom');
  });

  it('gives up at the deadline when the server never answers', async () => {
    const server = await startServer(() => {});
    const result = await client().send(get(server.url, { timeoutMs: 300 }));
    expect(failureOf(result)).toEqual({ kind: 'timeout', message: 'No complete answer within 300 ms' });
    expect(result.latencyMs).toBeGreaterThanOrEqual(295);
    expect(result.latencyMs).toBeLessThan(1000);
    expect(server.requests).toHaveLength(1);
  });

  it('gives up at the deadline when the body stalls half-way', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'Content-Length': '100' });
      res.write('only part');
    });
    const result = await client().send(get(server.url, { timeoutMs: 300 }));
    expect(failureOf(result).kind).toBe('timeout');
    expect(result.latencyMs).toBeLessThan(1000);
  });

  it('counts resolving the name against the deadline', async () => {
    const result = await client({
      allowPrivateNetworks: true,
      connectTimeoutMs: 500,
      resolve: () => new Promise(() => {}),
    }).send(get('http://slow-dns.test/', { timeoutMs: 200 }));
    expect(failureOf(result)).toEqual({ kind: 'timeout', message: 'No complete answer within 200 ms' });
    expect(result.latencyMs).toBeLessThan(1000);
  });

  it('gives up resolving a name after the connect timeout', async () => {
    const result = await client({
      allowPrivateNetworks: true,
      connectTimeoutMs: 100,
      resolve: () => new Promise(() => {}),
    }).send(get('http://slow-dns.test/', { timeoutMs: 2000 }));
    expect(failureOf(result)).toEqual({ kind: 'dns', message: 'Could not resolve host slow-dns.test within 100 ms' });
  });

  it('reports a refused connection', async () => {
    const port = await closedPort();
    const result = await client().send(get(`http://127.0.0.1:${port}/`));
    expect(failureOf(result)).toEqual({ kind: 'connect', message: `Connection refused by 127.0.0.1:${port}` });
  });

  it('reports a name that does not resolve', async () => {
    const notFound = async (hostname: string): Promise<string[]> => {
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname });
    };
    const result = await client({ resolve: notFound }).send(get('https://nowhere.test/hook'));
    expect(failureOf(result)).toEqual({ kind: 'dns', message: 'Could not resolve host nowhere.test' });

    const empty = await client({ resolve: async () => [] }).send(get('https://empty.test/hook'));
    expect(failureOf(empty)).toEqual({ kind: 'dns', message: 'Could not resolve host empty.test' });
  });

  it('refuses URLs that are not http or https', async () => {
    expect(failureOf(await client().send(get('not a url')))).toEqual({
      kind: 'invalid',
      message: 'The URL is not valid',
    });
    expect(failureOf(await client().send(get('ftp://example.com/file')))).toEqual({
      kind: 'invalid',
      message: 'Only http and https URLs are allowed, not ftp:',
    });
  });

  it('keeps at most maxResponseBytes of the body and says it truncated', async () => {
    const server = await startServer((req, res) => res.end('x'.repeat(req.url === '/exact' ? 1000 : 100_000)));
    const c = client();
    const long = responseOf(await c.send(get(`${server.url}/long`, { maxResponseBytes: 1000 })));
    expect(long.truncated).toBe(true);
    expect(long.body.length).toBe(1000);

    const exact = responseOf(await c.send(get(`${server.url}/exact`, { maxResponseBytes: 1000 })));
    expect(exact.truncated).toBe(false);
    expect(exact.body.length).toBe(1000);
  });

  it('connects to the resolved address but keeps the hostname for the Host header', async () => {
    const server = await startServer((_req, res) => res.end('ok'));
    const resolved: string[] = [];
    const c = client({
      allowPrivateNetworks: true,
      resolve: async (hostname) => {
        resolved.push(hostname);
        return ['127.0.0.1'];
      },
    });
    const response = responseOf(await c.send(get(`http://api.customer.test:${server.port}/`)));
    expect(response.body.toString()).toBe('ok');
    expect(resolved).toEqual(['api.customer.test']);
    expect(server.requests[0]?.headers.host).toBe(`api.customer.test:${server.port}`);
  });

  it('resolves once per new connection and reuses kept-alive connections', async () => {
    const server = await startServer((req, res) => {
      if (req.url === '/last-on-this-connection') res.setHeader('Connection', 'close');
      res.end('ok');
    });
    let resolutions = 0;
    const c = client({
      allowPrivateNetworks: true,
      resolve: async () => {
        resolutions++;
        return ['127.0.0.1'];
      },
    });
    const origin = `http://api.customer.test:${server.port}`;
    responseOf(await c.send(get(`${origin}/first`)));
    // undici marks a connection free again a tick after its response ends; sooner, it opens another.
    await setImmediate();
    responseOf(await c.send(get(`${origin}/last-on-this-connection`)));
    expect({ resolutions, connections: server.connections }).toEqual({ resolutions: 1, connections: 1 });

    responseOf(await c.send(get(`${origin}/after-close`)));
    expect({ resolutions, connections: server.connections }).toEqual({ resolutions: 2, connections: 2 });
  });
});

describe('createOutboundClient without private networks', () => {
  const guarded = () => client({ allowPrivateNetworks: false, connectTimeoutMs: 300 });

  it.each([
    ['127.0.0.1', 'loopback'],
    ['[::1]', 'loopback'],
    ['[::ffff:127.0.0.1]', 'loopback'],
    ['10.0.0.1', 'private network'],
    ['172.16.0.1', 'private network'],
    ['192.168.1.1', 'private network'],
    ['169.254.169.254', 'cloud metadata'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['0.0.0.0', 'unspecified'],
  ])('refuses %s (%s) before sending anything', async (host, reason) => {
    const server = await startServer((_req, res) => res.end('reached'));
    const resolved: string[] = [];
    const c = client({
      allowPrivateNetworks: false,
      resolve: async (hostname) => {
        resolved.push(hostname);
        return [];
      },
    });
    const failure = failureOf(await c.send(get(`http://${host}:${server.port}/`)));
    expect(failure.kind).toBe('blocked');
    expect(failure.message).toContain(`(${reason}); set SWITCHBOARD_ALLOW_PRIVATE_NETWORKS=true`);
    expect(resolved).toEqual([]);
    expect(server.connections).toBe(0);
  });

  it('refuses localhost by the address it resolves to', async () => {
    const server = await startServer((_req, res) => res.end('reached'));
    const failure = failureOf(await guarded().send(get(`http://localhost:${server.port}/`)));
    expect(failure.kind).toBe('blocked');
    expect(failure.message).toMatch(/^The host "localhost" resolves to a private address, which is not allowed;/);
    expect(failure.message).not.toMatch(/127\.0\.0\.1|::1|loopback/);
    expect(server.connections).toBe(0);
  });

  it('refuses a public-looking name that resolves to loopback, without saying what it resolves to', async () => {
    const server = await startServer((_req, res) => res.end('reached'));
    const c = client({ allowPrivateNetworks: false, resolve: async () => ['127.0.0.1'] });
    const failure = failureOf(await c.send(get(`https://hooks.customer.example:${server.port}/`)));
    expect(failure).toEqual({
      kind: 'blocked',
      message:
        'The host "hooks.customer.example" resolves to a private address, which is not allowed; ' +
        'set SWITCHBOARD_ALLOW_PRIVATE_NETWORKS=true to allow private networks',
    });
    expect(server.connections).toBe(0);
  });

  it('checks again on the next connection when the name rebinds to loopback', async () => {
    // The first answer is a public address, so the guard lets that connection be attempted (it reaches
    // nothing of ours, whatever the network does with it). The second answer is the loopback server: if
    // the client cached the first verdict for this name, the server would see the second request.
    const server = await startServer((_req, res) => res.end('reached'));
    const answers = [['93.184.216.34'], ['127.0.0.1']];
    const resolved: string[][] = [];
    const c = client({
      allowPrivateNetworks: false,
      connectTimeoutMs: 300,
      resolve: async () => {
        const answer = answers[resolved.length] ?? [];
        resolved.push(answer);
        return answer;
      },
    });
    const url = `http://rebind.test:${server.port}/`;
    // Connection: close so that even a connection the first request did open is not reused.
    const first = await c.send(get(url, { headers: { connection: 'close' }, timeoutMs: 1000 }));
    expect(first.ok || first.failure.kind).not.toBe('blocked');

    const second = failureOf(await c.send(get(url, { timeoutMs: 1000 })));
    expect(second.kind).toBe('blocked');
    expect(second.message).toContain('The host "rebind.test" resolves to a private address, which is not allowed');
    expect(resolved).toEqual([['93.184.216.34'], ['127.0.0.1']]);
    expect(server.connections).toBe(0);
  });

  it('connects to an allowed address when the name also has blocked ones', async () => {
    // Loopback comes first in the answer; a client that took the first address would reach our server.
    const server = await startServer((_req, res) => res.end('reached'));
    const c = client({
      allowPrivateNetworks: false,
      connectTimeoutMs: 300,
      resolve: async () => ['127.0.0.1', '93.184.216.34'],
    });
    const result = await c.send(get(`http://mixed.test:${server.port}/`, { timeoutMs: 1000 }));
    expect(result.ok || result.failure.kind).not.toBe('blocked');
    expect(server.connections).toBe(0);
  });
});

describe('blockedAddressReason', () => {
  it.each([
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['10.1.2.3', 'private network'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.255', 'carrier-grade NAT'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['169.254.169.254', 'cloud metadata'],
    ['169.254.1.1', 'link-local'],
    ['172.16.0.1', 'private network'],
    ['172.31.255.255', 'private network'],
    ['192.0.0.8', 'reserved'],
    ['192.0.2.1', 'documentation'],
    ['192.168.0.1', 'private network'],
    ['198.18.0.1', 'reserved'],
    ['198.19.255.255', 'reserved'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.9', 'documentation'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['fc00::1', 'private network'],
    ['fd12:3456::1', 'private network'],
    ['fd00:ec2::254', 'cloud metadata'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['[fe80::1%25eth0]', 'link-local'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'documentation'],
    ['100::1', 'reserved'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::FFFF:A9FE:A9FE', 'cloud metadata'],
    ['::ffff:10.0.0.1', 'private network'],
    ['::127.0.0.1', 'loopback'],
    ['::a00:1', 'private network'],
    ['64:ff9b::127.0.0.1', 'loopback'],
    ['64:ff9b::a9fe:a9fe', 'cloud metadata'],
    ['2002:7f00:1::', 'loopback'],
    ['2002:c0a8:101::1', 'private network'],
    ['4000::1', 'reserved'],
    ['localhost', 'not an IP address'],
    ['', 'not an IP address'],
    ['1.2.3', 'not an IP address'],
    ['256.1.1.1', 'not an IP address'],
    ['0177.0.0.1', 'not an IP address'],
    ['2130706433', 'not an IP address'],
    ['1::2::3', 'not an IP address'],
    ['1:2:3:4:5:6:7:8:9', 'not an IP address'],
    ['12345::1', 'not an IP address'],
    ['::ffff:127.0.0.256', 'not an IP address'],
  ])('%s is refused as %s', (ip, reason) => {
    expect(blockedAddressReason(ip)).toBe(reason);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '100.63.255.255',
    '172.32.0.1',
    '2606:4700:4700::1111',
    '[2606:4700:4700::1111]',
    '2a00:1450:4001:80b::200e',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ])('%s is public', (ip) => {
    expect(blockedAddressReason(ip)).toBeUndefined();
  });

  it('names a typed address and its range, a name without what it resolves to, and the setting that allows it', () => {
    const error = new BlockedAddressError('169.254.169.254', 'cloud metadata', 'vm');
    expect(error).toMatchObject({ name: 'BlockedAddressError', address: '169.254.169.254', reason: 'cloud metadata' });
    expect(error.message).toBe(
      'The host "vm" resolves to a private address, which is not allowed; ' +
        'set SWITCHBOARD_ALLOW_PRIVATE_NETWORKS=true to allow private networks',
    );
    expect(new BlockedAddressError('10.0.0.1', 'private network').message).toMatch(
      /^The address 10\.0\.0\.1 is not allowed \(private network\);/,
    );
  });
});
