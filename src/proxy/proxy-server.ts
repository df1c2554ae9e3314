// The recording proxy (SPEC §12 `proxy`): an HTTP server on loopback that speaks OpenAI chat
// completions, OpenAI Responses and Anthropic Messages to its clients and forwards each request
// to the upstream unchanged. The response goes back unchanged and unbuffered, chunk by chunk as
// it arrives; a copy of it is read once it is complete, and the call is written to its session
// (proxy-session.ts) after the client has its bytes. Other paths are passed through, unrecorded.

import { createServer, Agent as HttpAgent, type IncomingMessage, type ServerResponse } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { AddressInfo } from 'node:net';
import { ConfigError, messageOf, ShadowlogError } from '../log/errors.js';
import { isSessionId } from '../log/session-id.js';
import type { LogStore } from '../store/log-store.js';
import { nodeSha256HexOfBytes } from '../store/node-sha256.js';
import { failure } from './answer-outcome.js';
import { addressingRefusal, isLoopbackHost, remoteNames } from './client-checks.js';
import { sendError } from './error-answer.js';
import { recordedHeaders, SESSION_HEADER } from './headers.js';
import { type ProxyProtocol, protocolOf, type UpstreamName } from './protocols.js';
import { badOption, badUpstream } from './proxy-errors.js';
import { ProxyRefusalError, ProxyRequestTooLargeError, ProxySessionHeaderError } from './proxy-refusals.js';
import type { CallOutcome, ReceivedCall } from './proxy-session.js';
import { RecordingQueue } from './recording-queue.js';
import { ProxyClientAbortedError, readBody } from './request-body.js';
import { UnreadableRequestError } from './request-notes.js';
import { checkTarget, upstreamUrl } from './request-target.js';
import { SessionRouter } from './session-router.js';
import { forwardCall, passThrough, type UpstreamCallContext } from './upstream-call.js';
import { redactedTarget, redactedUrl } from './url-redaction.js';

export { isLoopbackHost } from './client-checks.js';

export interface ProxyOptions {
  readonly store: LogStore;
  /** Base URLs (scheme, host, port, and a path prefix if any) the client's path is appended to; userinfo goes as Basic auth, and is never shown. */
  readonly upstreams: { readonly openai?: string; readonly anthropic?: string };
  /** Default 8787; 0 picks a free port. */
  readonly port?: number;
  /** Default 127.0.0.1. An address that is not loopback needs allowRemote. */
  readonly host?: string;
  /** Listen on an address that is not loopback: anyone who can reach it can send calls through the proxy and have them recorded. */
  readonly allowRemote?: boolean;
  /** More names the proxy answers to in the Host and Origin headers, beside the loopback ones (and, with allowRemote, the address it listens on and the machine's name). */
  readonly allowedHosts?: readonly string[];
  /** More request headers to keep out of the log (authorization, x-api-key, api-key, cookie are always kept out). */
  readonly redactHeaders?: readonly string[];
  /** How long the upstream may stay silent (before its headers, or between chunks); default 10 minutes. */
  readonly upstreamTimeoutMs?: number;
  /** A body larger than this is forwarded and stored, but not parsed (recorded as unparsed); default 32 MiB. */
  readonly maxParseBytes?: number;
  /** A recorded call's request body larger than this is refused (413), not forwarded; default 64 MiB. */
  readonly maxRequestBytes?: number;
  /** The most of an answer the proxy keeps for the record, as received and as decoded; a larger one is recorded as PROXY_ANSWER_TOO_LARGE. Default 32 MiB. */
  readonly maxAnswerBytes?: number;
  /** Calls forwarded and not yet written; more wait (back-pressure). Default 256. */
  readonly queueCapacity?: number;
  /** What the operator should know: a remote address, refused requests, a session recorded as a sibling. */
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
  /** Requests refused before anything was forwarded or written (a target, Host or Origin refused, a foreign session, a body over the cap). */
  refused: number;
  /** Clients that closed their connection before their request body was complete (nothing forwarded). */
  clientAborts: number;
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
// Twice the 32 MB Anthropic's Messages API accepts: a body the provider would take is never refused here.
export const DEFAULT_MAX_REQUEST_BYTES = 64 * 1024 * 1024;
// A model's answer is text and tool calls, rarely a megabyte; an image in it a few.
export const DEFAULT_MAX_ANSWER_BYTES = 32 * 1024 * 1024;
const DEFAULT_QUEUE = 256;
// Refusals told one line each up to this many; then counted only (a flood would bury everything else).
const REFUSALS_TOLD = 100;

export async function startProxy(options: ProxyOptions): Promise<ProxyServer> {
  const upstreams = checkedUpstreams(options.upstreams);
  const host = options.host ?? '127.0.0.1';
  const port = options.port ?? DEFAULT_PROXY_PORT;
  const timeoutMs = positive('upstreamTimeoutMs', options.upstreamTimeoutMs ?? DEFAULT_TIMEOUT_MS);
  const maxParseBytes = positive('maxParseBytes', options.maxParseBytes ?? DEFAULT_MAX_PARSE_BYTES);
  const maxRequestBytes = positive('maxRequestBytes', options.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES);
  const maxAnswerBytes = positive('maxAnswerBytes', options.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES);
  const queue = new RecordingQueue(positive('queueCapacity', options.queueCapacity ?? DEFAULT_QUEUE));
  const redact = options.redactHeaders ?? [];
  const exposed = !isLoopbackHost(host);
  if (exposed && options.allowRemote !== true) {
    throw new ConfigError(
      'host',
      `--host ${host} is not a loopback address: anyone who can reach it could send calls through the proxy and write sessions in the store. Use 127.0.0.1 (the default), or add --allow-remote to mean it`,
    );
  }
  const names = remoteNames(host, options.allowRemote === true, options.allowedHosts ?? []);
  const warn = options.onWarning ?? (() => {});
  const stats: ProxyStats = {
    forwarded: 0,
    recorded: 0,
    passedThrough: 0,
    upstreamFailures: 0,
    recordErrors: 0,
    refused: 0,
    clientAborts: 0,
    queuePeak: 0,
    queueWaits: 0,
    queueWaiting: 0,
  };
  const onRecordError = (error: unknown, sessionId: string) => {
    stats.recordErrors++;
    options.onRecordError?.(error, sessionId);
  };
  const router = new SessionRouter(options.store, onRecordError, options.newSessionId, (named, sibling, owner) =>
    warn(
      `session ${named} is owned by another writer (${owner}): its calls are forwarded and recorded in session ${sibling}, with a note saying why`,
    ),
  );
  const context: UpstreamCallContext = {
    agents: { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) },
    timeoutMs,
    maxAnswerBytes,
  };
  const inFlight = new Set<Promise<void>>();

  const server = createServer({ noDelay: true }, (request, response) => {
    const work = handle(request, response).catch((error: unknown) => {
      // A bug or a store that refused a new session: the client still gets an answer in its API's shape.
      try {
        sendError(response, protocolOf(request.method ?? '', request.url ?? ''), 502, `shadowlog proxy: ${messageOf(error)}`);
      } catch {
        response.destroy();
      }
      onRecordError(error, '');
    });
    inFlight.add(work);
    work.finally(() => inFlight.delete(work));
  });

  /** Answers a refused request: counted, told (up to REFUSALS_TOLD lines), nothing forwarded or written. */
  function refuse(response: ServerResponse, protocol: ProxyProtocol | undefined, refusal: ProxyRefusalError, close = false): void {
    stats.refused++;
    if (stats.refused <= REFUSALS_TOLD) warn(`refused a request (HTTP ${refusal.status}): ${refusal.code}: ${refusal.message}`);
    if (stats.refused === REFUSALS_TOLD) warn(`${REFUSALS_TOLD} requests refused; further refusals are counted, not told`);
    sendError(response, protocol, refusal.status, `shadowlog proxy: ${refusal.code}: ${refusal.message}`, { code: refusal.code, close });
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const method = request.method ?? 'GET';
    const target = request.url ?? '/';
    const protocol = protocolOf(method, target);
    let url: URL | undefined;
    const upstreamName: UpstreamName =
      protocol?.upstream ??
      (target.startsWith('/v1/messages') || request.headers['anthropic-version'] !== undefined ? 'anthropic' : 'openai');
    const base = upstreams[upstreamName];
    try {
      checkTarget(target);
      const refusal = addressingRefusal(request.headers, names);
      if (refusal !== undefined) throw refusal;
      if (base !== undefined) url = upstreamUrl(base, target);
    } catch (error) {
      if (!ProxyRefusalError.isInstance(error)) throw error;
      return refuse(response, protocol, error, !request.complete);
    }
    if (protocol === undefined) {
      stats.passedThrough++;
      if (url === undefined) return sendError(response, undefined, 502, `shadowlog proxy: no ${upstreamName} upstream is configured`);
      return passThrough(context, request, response, url);
    }
    const named = headerValue(request.headers[SESSION_HEADER]);
    // Refused before anything is forwarded or written: the client named a session no store can hold.
    if (named !== undefined && !isSessionId(named))
      return refuse(response, protocol, new ProxySessionHeaderError(SESSION_HEADER, named), true);
    let body: Buffer;
    try {
      body = await readBody(request, maxRequestBytes);
    } catch (error) {
      // The client's own business: counted, and the proxy goes on quietly.
      if (ProxyClientAbortedError.isInstance(error)) {
        stats.clientAborts++;
        return;
      }
      if (ProxyRequestTooLargeError.isInstance(error)) return refuse(response, protocol, error, true);
      throw error;
    }
    const { headers, redacted } = recordedHeaders(request.headers, redact);
    const call: ReceivedCall = {
      protocol,
      path: redactedTarget(target),
      body,
      digest: nodeSha256HexOfBytes(body),
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
      if (ProxyRefusalError.isInstance(error)) return refuse(response, protocol, error);
      throw error;
    }
    let finished = false;
    const finish = (outcome: CallOutcome) => {
      if (finished) return;
      finished = true;
      if (outcome.kind === 'failure') stats.upstreamFailures++;
      routed.session
        .finish(call, outcome)
        .then(() => {
          stats.recorded++;
        })
        .finally(giveBack);
    };
    stats.forwarded++;
    try {
      if (url === undefined) {
        const message = `shadowlog proxy: no ${protocol.upstream} upstream is configured (start the proxy with --upstream-${protocol.upstream} URL)`;
        sendError(response, protocol, 502, message);
        return finish(failure('PROXY_NO_UPSTREAM', message, undefined));
      }
      await forwardCall(context, request, response, protocol, url, body, finish);
    } finally {
      // A call routed to a session always gets an outcome: the session writes its calls in order, and waits for it.
      if (!finished) finish(failure('PROXY_INTERNAL', 'the proxy failed while forwarding this call', undefined));
    }
  }

  if (exposed) {
    warn(
      `WARNING: the proxy is to listen on ${host}, which is not a loopback address: anyone who can reach it can send calls through it with the credentials of their own, and have them recorded. Use --host 127.0.0.1 unless you mean this.`,
    );
  }
  const listenHost = host.replace(/^\[(.*)\]$/, '$1');
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(new ProxyListenError(host, port, error)));
    server.listen(port, listenHost, () => {
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
        context.agents.http.destroy();
        context.agents.https.destroy();
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

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function checkedUpstreams(upstreams: ProxyOptions['upstreams']): Partial<Record<UpstreamName, URL>> {
  const checked: Partial<Record<UpstreamName, URL>> = {};
  for (const name of ['openai', 'anthropic'] as const) {
    const value = upstreams[name];
    if (value === undefined) continue;
    const url = URL.canParse(value) ? new URL(value) : undefined;
    if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.search !== '' || url.hash !== '')
      throw badUpstream(name, redactedUrl(value));
    checked[name] = url;
  }
  return checked;
}

function positive(key: string, value: number): number {
  if (!Number.isSafeInteger(value) || value <= 0) throw badOption(key, 'a positive whole number', value);
  return value;
}
