// A fake provider on 127.0.0.1 that speaks the real HTTP wire formats of OpenAI chat
// completions (POST /v1/chat/completions), the OpenAI Responses API (POST /v1/responses, and its
// compaction, POST /v1/responses/compact) and Anthropic Messages (POST /v1/messages, compaction too). It answers from a queue of scripted responses (each
// given whole, or computed from the request it answers) and records every request byte for byte;
// a request with nothing queued gets a 500 that says so, never a default answer. It is stricter than the real servers: a request that breaks a rule
// of its API (fake-provider-requests.ts) is refused with a 400 in the provider's own words,
// and listed in `violations`. Every answer carries a request id, as the real servers send.

import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkRequest, type FakeProtocol, type FakeServerOptions, refusalBody } from './fake-provider-requests.js';

export type { FakeServerOptions } from './fake-provider-requests.js';

type Headers = Readonly<Record<string, string>>;

export type FakeResponse =
  /** A JSON body (status 200 unless given). */
  | { readonly type: 'json'; readonly body: unknown; readonly status?: number; readonly headers?: Headers }
  /**
   * An SSE stream of data payloads (a fixture's lines). Anthropic and Responses events get an `event:`
   * line named by the payload's `type`; an OpenAI stream that ends completely ends with
   * `data: [DONE]` (`done` overrides that). The wire text is cut into chunks of `chunkSizes` bytes (cycled), with
   * `delayMs` between chunks. `end`: 'complete' (default), 'stall' (never ends), or 'destroy'
   * (the connection is destroyed after `cutAfterBytes` bytes, or after all of them).
   */
  | {
      readonly type: 'sse';
      readonly payloads: readonly string[];
      readonly chunkSizes?: readonly number[];
      readonly delayMs?: number;
      readonly done?: boolean;
      readonly end?: 'complete' | 'stall' | 'destroy';
      readonly cutAfterBytes?: number;
      readonly headers?: Headers;
    }
  /** An HTTP error: an object body is sent as JSON, a string as it is, none as an empty body. */
  | { readonly type: 'error'; readonly status: number; readonly body?: unknown; readonly headers?: Headers }
  /** Headers, then nothing, ever; with heartbeatMs, an SSE comment that often, forever. */
  | { readonly type: 'stall'; readonly heartbeatMs?: number }
  /** Any body with any content type: for answers that are not JSON. */
  | { readonly type: 'raw'; readonly body: string; readonly contentType: string; readonly status?: number }
  /** The response `respond` makes of the request it answers (as recorded): a stand-in derived from what was sent. */
  | { readonly type: 'computed'; readonly respond: (request: RecordedRequest) => FakeResponse };

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  /** The body exactly as received, decoded as UTF-8. */
  readonly body: string;
}

export interface FakeProviderServer {
  /** http://127.0.0.1:PORT, without a path. */
  readonly baseUrl: string;
  readonly requests: RecordedRequest[];
  /** The rules each refused request broke, one entry per refused request. */
  readonly violations: string[][];
  enqueue(...responses: FakeResponse[]): void;
  /** Responses queued and not yet served. */
  remaining(): number;
  close(): Promise<void>;
}

const ROUTES = new Map<string, FakeProtocol>([
  ['/v1/chat/completions', 'openai'],
  ['/v1/responses', 'responses'],
  ['/v1/messages', 'anthropic'],
  ['/v1/responses/compact', 'responses-compact'],
]);

export async function startFakeProviderServer(options: FakeServerOptions = {}): Promise<FakeProviderServer> {
  const queue: FakeResponse[] = [];
  const requests: RecordedRequest[] = [];
  const violations: string[][] = [];
  const timers = new Set<ReturnType<typeof setInterval>>();
  const server = createServer((request, response) => {
    const parts: Buffer[] = [];
    request.on('data', (part: Buffer) => parts.push(part));
    request.on('end', () => {
      const path = request.url ?? '';
      const body = Buffer.concat(parts).toString('utf8');
      const recorded: RecordedRequest = { method: request.method ?? '', path, headers: request.headers, body };
      requests.push(recorded);
      const protocol = request.method === 'POST' ? ROUTES.get(path) : undefined;
      if (protocol === undefined) return sendJson(response, 404, fakeError(`no route for ${request.method} ${path}`));
      // The official names: OpenAI's x-request-id, Anthropic's request-id.
      response.setHeader(protocol === 'anthropic' ? 'request-id' : 'x-request-id', `req_fake_${requests.length}`);
      const problems = checkRequest(protocol, request.headers, parsed(body), options);
      if (problems.length > 0) {
        violations.push(problems);
        return sendJson(response, 400, refusalBody(protocol, problems));
      }
      const scripted = queue.shift();
      if (scripted === undefined) return sendJson(response, 500, fakeError(`no response queued for ${request.method} ${path}`));
      Promise.resolve()
        .then(() => respond(response, computed(scripted, recorded), protocol, timers))
        .catch((error: unknown) => {
          // A bug in a script must fail the test that made it, not hang it.
          if (!response.headersSent) sendJson(response, 500, fakeError(`the scripted response failed: ${String(error)}`));
          else response.destroy();
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    violations,
    enqueue: (...responses) => queue.push(...responses),
    remaining: () => queue.length,
    async close() {
      for (const timer of timers) clearInterval(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function parsed(body: string): unknown {
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return undefined;
  }
}

/** The response a queued one stands for: a computed one's answer to `request`. */
function computed(scripted: FakeResponse, request: RecordedRequest): Exclude<FakeResponse, { type: 'computed' }> {
  return scripted.type === 'computed' ? computed(scripted.respond(request), request) : scripted;
}

function fakeError(message: string) {
  return { error: { message: `fake provider server: ${message}`, type: 'fake_server_error' } };
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

async function respond(
  response: ServerResponse,
  scripted: Exclude<FakeResponse, { type: 'computed' }>,
  protocol: FakeProtocol,
  timers: Set<ReturnType<typeof setInterval>>,
) {
  switch (scripted.type) {
    case 'json':
      for (const [name, value] of Object.entries(scripted.headers ?? {})) response.setHeader(name, value);
      return sendJson(response, scripted.status ?? 200, scripted.body);
    case 'error': {
      const body = scripted.body === undefined ? '' : typeof scripted.body === 'string' ? scripted.body : JSON.stringify(scripted.body);
      response.writeHead(scripted.status, { 'content-type': 'application/json', ...scripted.headers });
      return response.end(body);
    }
    case 'raw':
      response.writeHead(scripted.status ?? 200, { 'content-type': scripted.contentType });
      return response.end(scripted.body);
    case 'stall': {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.flushHeaders();
      if (scripted.heartbeatMs !== undefined) {
        const timer = setInterval(() => response.write(': keep-alive\n\n'), scripted.heartbeatMs);
        timers.add(timer);
        response.on('close', () => clearInterval(timer));
      }
      return;
    }
    case 'sse':
      return streamEvents(response, scripted, protocol);
  }
}

async function streamEvents(response: ServerResponse, scripted: Extract<FakeResponse, { type: 'sse' }>, protocol: FakeProtocol) {
  const frames = scripted.payloads.map((payload) => {
    // Anthropic and the Responses API name each event by its payload's type; chat completions names none.
    const name = protocol === 'openai' ? undefined : eventName(payload);
    return name === undefined ? `data: ${payload}\n\n` : `event: ${name}\ndata: ${payload}\n\n`;
  });
  const end = scripted.end ?? 'complete';
  if (protocol === 'openai' && (scripted.done ?? end === 'complete')) frames.push('data: [DONE]\n\n');
  let wire = Buffer.from(frames.join(''), 'utf8');
  if (end === 'destroy' && scripted.cutAfterBytes !== undefined) wire = wire.subarray(0, scripted.cutAfterBytes);
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...scripted.headers });
  response.flushHeaders();
  const sizes = scripted.chunkSizes ?? [wire.length];
  for (let offset = 0, turn = 0; offset < wire.length; turn++) {
    if (response.destroyed) return;
    const size = Math.max(1, sizes[turn % sizes.length] ?? wire.length);
    response.write(wire.subarray(offset, offset + size));
    offset += size;
    if (scripted.delayMs !== undefined) await new Promise((resolve) => setTimeout(resolve, scripted.delayMs));
  }
  if (end === 'complete') response.end();
  // A destroyed socket ends the chunked body without its terminating chunk: a truncated stream.
  else if (end === 'destroy') setTimeout(() => response.socket?.destroy(), 10);
}

/** An event's name is its payload's type; a payload that is not JSON (a test of bad streams) gets no name. */
function eventName(payload: string): string | undefined {
  try {
    const type: unknown = (JSON.parse(payload) as { type?: unknown }).type;
    return typeof type === 'string' ? type : undefined;
  } catch {
    return undefined;
  }
}

const FIXTURES = new URL('../fixtures/providers/', import.meta.url);

/** A recorded non-streaming response body (`name.json`). */
export function readFixtureJson(name: string): unknown {
  return JSON.parse(readFileSync(new URL(`${name}.json`, FIXTURES), 'utf8'));
}

/** The data payloads of a recorded stream (`name.chunks.txt`), one per line. */
export function readFixtureChunks(name: string): string[] {
  return readFileSync(new URL(`${name}.chunks.txt`, FIXTURES), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '');
}
