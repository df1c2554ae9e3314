// The peers of the proxy's fault suite (test/chaos/proxy-hostile.test.ts), all on 127.0.0.1: an
// upstream that writes scripted raw bytes on its socket (a malformed status line, a gzip bomb,
// a reset), a bystander server that counts what reaches it (the proxy must never send there),
// and a client that writes raw request bytes (targets and headers no HTTP library would send).

import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';

export interface ReceivedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

/** What the scripted upstream does with one request: raw bytes on the socket (then end or reset), or a function of the socket. */
export type UpstreamScript =
  | { readonly raw: string | Buffer; readonly ending?: 'end' | 'reset' }
  | { readonly socket: (socket: Socket) => void };

export interface ScriptedUpstream {
  /** http://127.0.0.1:PORT */
  readonly url: string;
  readonly port: number;
  readonly requests: ReceivedRequest[];
  /** Scripts for the next requests; with none queued a request gets a plain chat completion answering "fine". */
  enqueue(...scripts: UpstreamScript[]): void;
  close(): Promise<void>;
}

export const FINE_ANSWER = JSON.stringify({
  id: 'chatcmpl-fine',
  object: 'chat.completion',
  created: 1_700_000_000,
  model: 'gpt-4o-2024-08-06',
  choices: [{ index: 0, message: { role: 'assistant', content: 'fine', refusal: null }, finish_reason: 'stop', logprobs: null }],
  usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
});

export async function startScriptedUpstream(): Promise<ScriptedUpstream> {
  const queue: UpstreamScript[] = [];
  const requests: ReceivedRequest[] = [];
  const server = createServer((request, response) => {
    const parts: Buffer[] = [];
    request.on('data', (part: Buffer) => parts.push(part));
    request.on('end', () => {
      requests.push({ method: request.method ?? '', path: request.url ?? '', headers: request.headers, body: Buffer.concat(parts) });
      const script = queue.shift();
      if (script === undefined) return answerFine(response);
      const socket = response.socket as Socket;
      socket.on('error', () => {});
      if ('socket' in script) return script.socket(socket);
      socket.write(script.raw);
      if (script.ending === 'reset') socket.resetAndDestroy();
      else socket.end();
    });
  });
  const port = await listen(server);
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    enqueue: (...scripts) => queue.push(...scripts),
    close: () => closeServer(server),
  };
}

function answerFine(response: ServerResponse): void {
  response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(FINE_ANSWER) });
  response.end(FINE_ANSWER);
}

export interface Bystander {
  readonly port: number;
  readonly requests: ReceivedRequest[];
  close(): Promise<void>;
}

/** A server the proxy must never reach: it counts every request, and answers each as an upstream would. */
export async function startBystander(): Promise<Bystander> {
  const requests: ReceivedRequest[] = [];
  const server = createServer((request, response) => {
    const parts: Buffer[] = [];
    request.on('data', (part: Buffer) => parts.push(part));
    request.on('end', () => {
      requests.push({ method: request.method ?? '', path: request.url ?? '', headers: request.headers, body: Buffer.concat(parts) });
      answerFine(response);
    });
  });
  const port = await listen(server);
  return { port, requests, close: () => closeServer(server) };
}

export interface RawAnswer {
  readonly status: number;
  readonly head: string;
  readonly body: Buffer;
}

/** Writes `request` (raw bytes) to 127.0.0.1:port and reads the answer until the server closes the connection. */
export function rawExchange(port: number, request: string | Buffer): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    const parts: Buffer[] = [];
    socket.on('data', (part: Buffer) => parts.push(part));
    socket.on('error', reject);
    socket.on('end', () => {
      socket.end();
      const all = Buffer.concat(parts);
      const split = all.indexOf('\r\n\r\n');
      const head = all.subarray(0, split < 0 ? all.length : split).toString('latin1');
      resolve({
        status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0),
        head,
        body: split < 0 ? Buffer.alloc(0) : all.subarray(split + 4),
      });
    });
  });
}

/** A POST as raw bytes: `target` as it is, the headers given (a Host naming the proxy unless overridden), the body with its length. */
export function rawPost(port: number, target: string, headers: Record<string, string>, body: string): Promise<RawAnswer> {
  const all: Record<string, string> = {
    host: `127.0.0.1:${port}`,
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
    connection: 'close',
    ...headers,
  };
  const head = Object.entries(all)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return rawExchange(port, Buffer.from(`POST ${target} HTTP/1.1\r\n${head}\r\n${body}`, 'latin1'));
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
