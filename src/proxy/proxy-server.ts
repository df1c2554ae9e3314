// The recording proxy (SPEC §12 `proxy`): an HTTP server on loopback that speaks OpenAI chat
// completions, OpenAI Responses and Anthropic Messages to its clients and forwards each request
// to the upstream unchanged. The response goes back unchanged and unbuffered, chunk by chunk as
// it arrives; a copy of it is read once it is complete, and the call is written to its session
// (proxy-session.ts) after the client has its bytes. Other paths are passed through, unrecorded.

import { createServer, Agent as HttpAgent, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { ShadowlogError } from '../log/errors.js';
import { isSessionId } from '../log/session-id.js';
import type { LogStore } from '../store/log-store.js';
import { nodeSha256HexOfBytes } from '../store/node-sha256.js';
import { failure, outcomeOf, type UpstreamAnswer } from './answer-outcome.js';
import { passedOn, recordedHeaders, SESSION_HEADER } from './headers.js';
import { type ProxyProtocol, protocolOf, type UpstreamName } from './protocols.js';
import { badOption, badUpstream } from './proxy-errors.js';
import type { CallOutcome, ReceivedCall } from './proxy-session.js';
import { RecordingQueue } from './recording-queue.js';
import { UnreadableRequestError } from './request-notes.js';
import { SessionRouter } from './session-router.js';

export interface ProxyOptions {
  readonly store: LogStore;
  /** Base URLs (scheme, host, port, and a path prefix if any) the client's path is appended to. */
  readonly upstreams: { readonly openai?: string; readonly anthropic?: string };
  /** Default 8787; 0 picks a free port. */
  readonly port?: number;
  /** Default 127.0.0.1. Any address that is not loopback is announced through onWarning. */
  readonly host?: string;
  /** More request headers to keep out of the log (authorization, x-api-key, api-key, cookie are always kept out). */
  readonly redactHeaders?: readonly string[];
  /** How long the upstream may stay silent (before its headers, or between chunks); default 10 minutes. */
  readonly upstreamTimeoutMs?: number;
  /** A body larger than this is forwarded and stored, but not parsed (recorded as unparsed); default 32 MiB. */
  readonly maxParseBytes?: number;
  /** Calls forwarded and not yet written; more wait (back-pressure). Default 256. */
  readonly queueCapacity?: number;
  readonly onWarning?: (message: string) => void;
  /** A call that could not be written (the store failed): the proxy goes on, and says so here. */
  readonly onRecordError?: (error: unknown, sessionId: string) => void;
  /** Ids for new sessions (tests pin them). */
  readonly newSessionId?: () => string;
}

export interface ProxyStats {
  forwarded: number;
  recorded: number;
  passedThrough: number;
  upstreamFailures: number;
  recordErrors: number;
  /** The most calls forwarded and not yet written at once. */
  queuePeak: number;
  /** Calls that had to wait for a place in the queue (back-pressure), and those waiting now. */
  queueWaits: number;
  queueWaiting: number;
}

export interface ProxyServer {
  /** http://HOST:PORT */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** True when the proxy listens on an address other than loopback. */
  readonly exposed: boolean;
  readonly stats: Readonly<ProxyStats>;
  /** The ids of the sessions written so far, in the order they started. */
  sessionIds(): string[];
  /** Resolves once every call received so far is in the store. */
  settled(): Promise<void>;
  /** Stops accepting, waits for the calls in flight and their writes, ends open turns, releases the sessions. */
  close(): Promise<void>;
}

export const DEFAULT_PROXY_PORT = 8787;
const DEFAULT_TIMEOUT_MS = 600_000;
const DEFAULT_MAX_PARSE_BYTES = 32 * 1024 * 1024;
const DEFAULT_QUEUE = 256;

export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127(?:\.\d{1,3}){3}$/.test(host);
}

export async function startProxy(options: ProxyOptions): Promise<ProxyServer> {
  const upstreams = checkedUpstreams(options.upstreams);
  const host = options.host ?? '127.0.0.1';
  const port = options.port ?? DEFAULT_PROXY_PORT;
  const timeoutMs = positive('upstreamTimeoutMs', options.upstreamTimeoutMs ?? DEFAULT_TIMEOUT_MS);
  const maxParseBytes = positive('maxParseBytes', options.maxParseBytes ?? DEFAULT_MAX_PARSE_BYTES);
  const queue = new RecordingQueue(positive('queueCapacity', options.queueCapacity ?? DEFAULT_QUEUE));
  const redact = options.redactHeaders ?? [];
  const stats: ProxyStats = {
    forwarded: 0,
    recorded: 0,
    passedThrough: 0,
    upstreamFailures: 0,
    recordErrors: 0,
    queuePeak: 0,
    queueWaits: 0,
    queueWaiting: 0,
  };
  const onRecordError = (error: unknown, sessionId: string) => {
    stats.recordErrors++;
    options.onRecordError?.(error, sessionId);
  };
  const router = new SessionRouter(options.store, onRecordError, options.newSessionId);
  const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };
  const inFlight = new Set<Promise<void>>();

  const server = createServer({ noDelay: true }, (request, response) => {
    const work = handle(request, response).catch((error: unknown) => {
      // A bug or a store that refused a new session: the client still gets an answer in its API's shape.
      if (!response.headersSent)
        sendError(response, protocolOf(request.method ?? '', request.url ?? ''), 502, `shadowlog proxy: ${String(error)}`);
      else response.destroy();
      onRecordError(error, '');
    });
    inFlight.add(work);
    work.finally(() => inFlight.delete(work));
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const method = request.method ?? 'GET';
    const url = request.url ?? '/';
    const protocol = protocolOf(method, url);
    const upstreamName: UpstreamName =
      protocol?.upstream ?? (url.startsWith('/v1/messages') || request.headers['anthropic-version'] !== undefined ? 'anthropic' : 'openai');
    const base = upstreams[upstreamName];
    if (protocol === undefined) {
      stats.passedThrough++;
      if (base === undefined) return sendError(response, undefined, 502, `shadowlog proxy: no ${upstreamName} upstream is configured`);
      return passThrough(request, response, target(base, url));
    }
    const body = await readBody(request);
    const digest = nodeSha256HexOfBytes(body);
    const named = headerValue(request.headers[SESSION_HEADER]);
    if (named !== undefined && !isSessionId(named)) {
      // Refused before anything is forwarded or written: the client named a session no store can hold.
      return sendError(
        response,
        protocol,
        400,
        `shadowlog proxy: the ${SESSION_HEADER} header must match [A-Za-z0-9][A-Za-z0-9._-]{0,127}, found ${JSON.stringify(String(named).slice(0, 80))}`,
      );
    }
    const { headers, redacted } = recordedHeaders(request.headers, redact);
    const call: ReceivedCall = {
      protocol,
      path: url,
      body,
      digest,
      request: readRequest(protocol, body, maxParseBytes),
      headers,
      redactedHeaders: redacted,
    };
    const giveBack = await queue.take();
    let routed: Awaited<ReturnType<SessionRouter['route']>>;
    try {
      routed = await router.route(call, named);
    } catch (error) {
      giveBack();
      throw error;
    }
    const finish = (outcome: CallOutcome) => {
      if (outcome.kind === 'failure') stats.upstreamFailures++;
      routed.session.finish(call, outcome);
      routed.session
        .settled()
        .then(() => {
          stats.recorded++;
        })
        .finally(giveBack);
    };
    stats.forwarded++;
    if (base === undefined) {
      const message = `shadowlog proxy: no ${protocol.upstream} upstream is configured (start the proxy with --upstream-${protocol.upstream} URL)`;
      sendError(response, protocol, 502, message);
      return finish(failure('PROXY_NO_UPSTREAM', message, undefined));
    }
    await forward(request, response, protocol, target(base, url), body, finish);
  }

  function forward(
    request: IncomingMessage,
    response: ServerResponse,
    protocol: ProxyProtocol,
    url: URL,
    body: Buffer,
    finish: (outcome: CallOutcome) => void,
  ): Promise<void> {
    return new Promise<void>((resolve) => {
      let done = false;
      const chunks: Buffer[] = [];
      const settle = (outcome: CallOutcome | Promise<CallOutcome>) => {
        if (done) return;
        done = true;
        Promise.resolve(outcome)
          .then(finish)
          .catch((error: unknown) => finish(failure('PROXY_INTERNAL', `the proxy could not read the answer: ${String(error)}`, undefined)))
          .finally(resolve);
      };
      const partial = (): { format: 'sse' | 'json'; text: string } | undefined =>
        chunks.length === 0 ? undefined : { format: streamedHeaders ? 'sse' : 'json', text: Buffer.concat(chunks).toString('utf8') };
      let streamedHeaders = false;
      const upstream = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, {
        method: request.method,
        headers: passedOn(request.rawHeaders, [SESSION_HEADER, 'host']),
        agent: url.protocol === 'https:' ? agents.https : agents.http,
      });
      upstream.setTimeout(timeoutMs, () => upstream.destroy(new UpstreamTimeout(timeoutMs)));
      // After the headers went out the client gets what the upstream sent, cut where it was cut.
      const cut = (timedOut: boolean, why: string) => {
        response.destroy();
        settle(
          failure(
            timedOut ? 'PROXY_UPSTREAM_TIMEOUT' : 'PROXY_STREAM_CUT',
            timedOut ? `the upstream went silent for ${timeoutMs} ms in the middle of its answer` : `the upstream's answer was cut: ${why}`,
            response.statusCode,
            partial(),
            true,
          ),
        );
      };
      upstream.on('error', (error: Error) => {
        if (done) return;
        const timedOut = error instanceof UpstreamTimeout;
        if (response.headersSent) return cut(timedOut, error.message);
        const status = timedOut ? 504 : 502;
        const message = timedOut
          ? `shadowlog proxy: the upstream at ${url.origin} sent nothing for ${timeoutMs} ms`
          : `shadowlog proxy: the upstream at ${url.origin} could not be reached: ${error.message}`;
        sendError(response, protocol, status, message);
        settle(failure(timedOut ? 'PROXY_UPSTREAM_TIMEOUT' : 'PROXY_UPSTREAM_UNREACHABLE', message, undefined, undefined, true));
      });
      upstream.on('response', (answer) => {
        const status = answer.statusCode ?? 502;
        streamedHeaders = String(answer.headers['content-type'] ?? '').includes('text/event-stream');
        response.writeHead(status, answer.statusMessage, passedOn(answer.rawHeaders));
        if (streamedHeaders) response.flushHeaders();
        answer.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          if (!response.write(chunk)) {
            answer.pause();
            response.once('drain', () => answer.resume());
          }
        });
        answer.on('end', () => {
          response.end();
          settle(outcomeOf(protocol, { status, headers: answer.headers, body: Buffer.concat(chunks) } satisfies UpstreamAnswer));
        });
        let answerError: Error | undefined;
        answer.on('error', (error) => {
          answerError = error;
        });
        answer.on('close', () => {
          if (answer.complete || done) return;
          cut(answerError instanceof UpstreamTimeout, answerError?.message ?? 'the connection closed before the answer was complete');
        });
      });
      response.on('close', () => {
        if (done || response.writableFinished) return;
        upstream.destroy();
        settle(
          failure(
            'PROXY_CLIENT_CLOSED',
            'the client closed the connection before the answer was complete',
            response.headersSent ? response.statusCode : undefined,
            partial(),
          ),
        );
      });
      upstream.end(body);
    });
  }

  function passThrough(request: IncomingMessage, response: ServerResponse, url: URL): Promise<void> {
    return new Promise<void>((resolve) => {
      const upstream = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, {
        method: request.method,
        headers: passedOn(request.rawHeaders, [SESSION_HEADER, 'host']),
        agent: url.protocol === 'https:' ? agents.https : agents.http,
      });
      upstream.setTimeout(timeoutMs, () => upstream.destroy(new UpstreamTimeout(timeoutMs)));
      upstream.on('error', (error) => {
        if (!response.headersSent)
          sendError(response, undefined, error instanceof UpstreamTimeout ? 504 : 502, `shadowlog proxy: ${error.message}`);
        else response.destroy();
        resolve();
      });
      upstream.on('response', (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.statusMessage, passedOn(answer.rawHeaders));
        answer.pipe(response);
        answer.on('end', resolve);
        answer.on('error', () => {
          response.destroy();
          resolve();
        });
      });
      request.pipe(upstream);
    });
  }

  const exposed = !isLoopbackHost(host);
  if (exposed) {
    options.onWarning?.(
      `WARNING: the proxy is to listen on ${host}, which is not a loopback address: anyone who can reach it can send calls through it with the credentials of their own, and have them recorded. Use --host 127.0.0.1 unless you mean this.`,
    );
  }
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(new ProxyListenError(host, port, error)));
    server.listen(port, host, () => {
      server.removeAllListeners('error');
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${shownHost}:${address.port}`,
    host: address.address,
    port: address.port,
    exposed,
    get stats() {
      return { ...stats, queuePeak: queue.peak, queueWaits: queue.waited, queueWaiting: queue.waiting };
    },
    sessionIds: () => router.list().map((session) => session.id),
    async settled() {
      await Promise.allSettled([...inFlight]);
      await Promise.allSettled(router.list().map((session) => session.settled()));
    },
    close() {
      closing ??= (async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
        });
        await Promise.allSettled([...inFlight]);
        agents.http.destroy();
        agents.https.destroy();
        await router.close();
      })();
      return closing;
    },
  };
}

/** The proxy could not listen where it was told (the port is taken, the address is not this machine's). */
export class ProxyListenError extends ShadowlogError {
  constructor(host: string, port: number, cause: NodeJS.ErrnoException) {
    super('PROXY_LISTEN', `the proxy cannot listen on ${host}:${port}: ${cause.code ?? cause.message}; choose another --port or --host`, {
      cause,
    });
  }
}

class UpstreamTimeout extends Error {
  constructor(ms: number) {
    super(`no answer from the upstream for ${ms} ms`);
  }
}

function readRequest(protocol: ProxyProtocol, body: Buffer, maxParseBytes: number): ReceivedCall['request'] {
  if (body.length > maxParseBytes) return { unparsed: `the body is ${body.length} bytes, more than the ${maxParseBytes} the proxy parses` };
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch (error) {
    return { unparsed: `the body is not JSON (${(error as Error).message})` };
  }
  try {
    return protocol.readRequest(value);
  } catch (error) {
    if (error instanceof UnreadableRequestError) return { unparsed: error.message };
    throw error;
  }
}

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const parts: Buffer[] = [];
    request.on('data', (part: Buffer) => parts.push(part));
    request.on('end', () => resolve(parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts)));
    request.on('error', reject);
  });
}

function sendError(response: ServerResponse, protocol: ProxyProtocol | undefined, status: number, message: string): void {
  const body = protocol?.errorBody(status, message) ?? JSON.stringify({ error: { message, type: 'proxy_error' } });
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  response.end(body);
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function target(base: URL, path: string): URL {
  const prefix = base.pathname.endsWith('/') ? base.pathname.slice(0, -1) : base.pathname;
  return new URL(`${prefix}${path}`, base.origin);
}

function checkedUpstreams(upstreams: ProxyOptions['upstreams']): Partial<Record<UpstreamName, URL>> {
  const checked: Partial<Record<UpstreamName, URL>> = {};
  for (const name of ['openai', 'anthropic'] as const) {
    const value = upstreams[name];
    if (value === undefined) continue;
    const url = URL.canParse(value) ? new URL(value) : undefined;
    if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.search !== '' || url.hash !== '')
      throw badUpstream(name, value);
    checked[name] = url;
  }
  return checked;
}

function positive(key: string, value: number): number {
  if (!Number.isSafeInteger(value) || value <= 0) throw badOption(key, 'a positive whole number', value);
  return value;
}
