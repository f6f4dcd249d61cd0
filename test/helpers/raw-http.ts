import { connect } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  /** The body as text, chunked transfer coding removed. */
  body: string;
}

/**
 * One HTTP/1.1 request written byte for byte on a fresh connection, for what fetch refuses to send:
 * header values with control characters or bytes outside ASCII, duplicate headers, any content
 * type, a body that does not match its framing. Header values given as Buffers go out unchanged.
 */
export async function rawRequest(
  baseUrl: string,
  request: {
    method: string;
    path: string;
    headers: [string, string | Buffer][];
    body: Buffer;
    /** Send the body with `Transfer-Encoding: chunked` instead of `Content-Length`. */
    chunked?: boolean;
  },
): Promise<RawResponse> {
  const { hostname, port } = new URL(baseUrl);
  const head: Buffer[] = [Buffer.from(`${request.method} ${request.path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\n`)];
  for (const [name, value] of request.headers) {
    head.push(
      Buffer.from(`${name}: `),
      Buffer.isBuffer(value) ? value : Buffer.from(value, 'latin1'),
      Buffer.from('\r\n'),
    );
  }
  head.push(
    Buffer.from(
      request.chunked
        ? 'Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n'
        : `Content-Length: ${request.body.length}\r\nConnection: close\r\n\r\n`,
    ),
  );
  const payload = request.chunked
    ? Buffer.concat([
        ...(request.body.length > 0 ? [Buffer.from(`${request.body.length.toString(16)}\r\n`), request.body] : []),
        Buffer.from(request.body.length > 0 ? '\r\n0\r\n\r\n' : '0\r\n\r\n'),
      ])
    : request.body;

  const raw = await new Promise<Buffer>((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.setTimeout(15_000, () => socket.destroy(new Error('no complete answer within 15 s')));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    // The server may answer (and close) before it has read everything, e.g. a body over its limit.
    socket.on('error', (error: NodeJS.ErrnoException) =>
      chunks.length > 0 && error.code === 'ECONNRESET' ? resolve(Buffer.concat(chunks)) : reject(error),
    );
    socket.on('end', () => resolve(Buffer.concat(chunks)));
    socket.write(Buffer.concat([...head, payload]));
  });

  const split = raw.indexOf('\r\n\r\n');
  if (split < 0) throw new Error(`not an HTTP response: ${JSON.stringify(raw.toString('latin1').slice(0, 200))}`);
  const [statusLine = '', ...lines] = raw.subarray(0, split).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]);
  if (!Number.isInteger(status)) throw new Error(`not an HTTP status line: ${statusLine}`);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = raw.subarray(split + 4);
  if (headers['transfer-encoding'] === 'chunked') {
    const parts: Buffer[] = [];
    for (let at = 0; ; ) {
      const end = body.indexOf('\r\n', at);
      const size = Number.parseInt(body.subarray(at, end).toString('latin1'), 16);
      if (!(size > 0)) break;
      parts.push(body.subarray(end + 2, end + 2 + size));
      at = end + 2 + size + 2;
    }
    body = Buffer.concat(parts);
  }
  return { status, headers, body: body.toString('utf8') };
}
