// The recording proxy (SPEC §12 `proxy`): an HTTP server on loopback that speaks OpenAI chat
// completions, OpenAI Responses and Anthropic Messages to its clients and forwards each request
// to the upstream unchanged. The response goes back unchanged and unbuffered, chunk by chunk as
// it arrives; a copy of it is read once it is complete, and the call is written to its session
// (proxy-session.ts) after the client has its bytes. Other paths are passed through, unrecorded
// (proxy-handler.ts has one request's way). Stopping gives the calls in flight a grace period,
// then cuts them, each recorded with what arrived.

import { setMaxListeners } from 'node:events';
import { createServer, Agent as HttpAgent, type ServerResponse } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { AddressInfo } from 'node:net';
import { ConfigError, messageOf, ShadowlogError } from '../log/errors.js';
import type { LogStore } from '../store/log-store.js';
import { isLoopbackHost, remoteNames } from './client-checks.js';
import { sendError } from './error-answer.js';
import { HeldBytes } from './held-bytes.js';
import { errorShapeOf, type ProxyProtocol, type UpstreamName } from './protocols.js';
import { badOption, badUpstream } from './proxy-errors.js';
import { type HandlerContext, handleRequest, type ProxyCounts } from './proxy-handler.js';
import { type ProxyRefusalError, ProxyStoppingError } from './proxy-refusals.js';
import { RecordingQueue } from './recording-queue.js';
import { DEFAULT_LINK_IDLE_MS, SessionRouter } from './session-router.js';
import type { UpstreamCallContext } from './upstream-call.js';
import { redactedUrl } from './url-redaction.js';

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
  /** More names (without a port) the proxy answers to in the Host header, beside the loopback ones (and, with allowRemote, the address it listens on and the machine's name). */
  readonly allowedHosts?: readonly string[];
  /** More request headers to keep out of the log, beside every header whose name holds one of CREDENTIAL_NAME_WORDS. */
  readonly redactHeaders?: readonly string[];
  /** More query parameters whose values are kept out of the log, beside CREDENTIAL_QUERY_PARAMETERS and every name that holds one of CREDENTIAL_NAME_WORDS. */
  readonly redactQuery?: readonly string[];
  /** How long the upstream may stay silent (before its headers, or between chunks); default 10 minutes. */
  readonly upstreamTimeoutMs?: number;
  /** A body larger than this is forwarded and stored, but not parsed (recorded as unparsed); default 32 MiB. */
  readonly maxParseBytes?: number;
  /** A recorded call's request body larger than this is refused (413), not forwarded; default 64 MiB. */
  readonly maxRequestBytes?: number;
  /** The most bytes of recorded calls' request bodies held at once, read and not yet written; a call that would pass it waits, unread. At least maxRequestBytes; default 256 MiB. */
  readonly maxHeldBytes?: number;
  /** The most of an answer the proxy keeps for the record, as received and as decoded; a larger one is recorded as PROXY_ANSWER_TOO_LARGE. Default 32 MiB. */
  readonly maxAnswerBytes?: number;
  /** Calls forwarded and not yet written; more wait (back-pressure). Default 256. */
  readonly queueCapacity?: number;
  /** How long close() lets calls in flight go on before it cuts them (each recorded as PROXY_INTERRUPTED); default 5 seconds. */
  readonly stopGraceMs?: number;
  /** What the operator should know: a remote address, refused requests, a session recorded as a sibling. */
  readonly onWarning?: (message: string) => void;
  /** A call that could not be written (the store failed): the proxy goes on, and says so here. */
  readonly onRecordError?: (error: unknown, sessionId: string) => void;
  /** Ids for new sessions (tests pin them). */
  readonly newSessionId?: () => string;
  /**
   * How long after a session's last call a client's compaction sent with no conversation id is
   * still linked to it (session/start.continues); 0 links nothing. Default 30 minutes.
   */
  readonly linkIdleMs?: number;
}

export interface ProxyStats {
  /** Calls sent to the upstream. */
  forwarded: number;
  /** Calls whose request and outcome are in the store; with recordErrors, one count for every call forwarded, once it is written. */
  recorded: number;
  passedThrough: number;
  /** Calls whose outcome is a failure of the upstream (unreachable, a timeout, an HTTP error, a malformed or cut answer, one too large to keep). */
  upstreamFailures: number;
  /** Calls that could not be written (the store failed; a bug): each told through onRecordError. */
  recordErrors: number;
  /** Requests refused before anything was forwarded or written (a target, Host, Origin or method override refused, a foreign session, a body over the cap, no upstream for its API, the proxy stopping). */
  refused: number;
  /** Clients that closed their connection before their request body was complete (nothing forwarded). */
  clientAborts: number;
  /** Calls cut because the proxy stopped (after the grace period, or at a second stop), each recorded as PROXY_INTERRUPTED. */
  interrupted: number;
  /** The most calls forwarded and not yet written at once. */
  queuePeak: number;
  /** Calls that had to wait for a place in the queue (back-pressure), and those waiting now. */
  queueWaits: number;
  queueWaiting: number;
  /** Calls that waited, unread, for room under maxHeldBytes. */
  heldBytesWaits: number;
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
  /**
   * Stops: accepts no more requests (those not yet forwarded get a 503 PROXY_STOPPING), lets the
   * calls in flight go on for stopGraceMs, then cuts the rest (each recorded as PROXY_INTERRUPTED
   * with what arrived), writes every call, ends the open turns and releases the sessions. Called
   * again while stopping, it cuts at once; it always returns the same promise.
   */
  close(): Promise<void>;
}

export const DEFAULT_PROXY_PORT = 8787;
const DEFAULT_TIMEOUT_MS = 600_000;
const DEFAULT_MAX_PARSE_BYTES = 32 * 1024 * 1024;
// Twice the 32 MB Anthropic's Messages API accepts: a body the provider would take is never refused here.
export const DEFAULT_MAX_REQUEST_BYTES = 64 * 1024 * 1024;
// A model's answer is text and tool calls, rarely a megabyte; an image in it a few.
export const DEFAULT_MAX_ANSWER_BYTES = 32 * 1024 * 1024;
// Four bodies at the largest the proxy accepts: what a few large calls at once need.
export const DEFAULT_MAX_HELD_BYTES = 256 * 1024 * 1024;
const DEFAULT_QUEUE = 256;
// Long enough for an answer that is nearly done; short enough that Ctrl-C feels like it works.
export const DEFAULT_STOP_GRACE_MS = 5000;
// Refusals told one line each up to this many; then counted only (a flood would bury everything else).
const REFUSALS_TOLD = 100;

export async function startProxy(options: ProxyOptions): Promise<ProxyServer> {
  const upstreams = checkedUpstreams(options.upstreams);
  const host = options.host ?? '127.0.0.1';
  const port = options.port ?? DEFAULT_PROXY_PORT;
  const timeoutMs = positive('upstreamTimeoutMs', options.upstreamTimeoutMs ?? DEFAULT_TIMEOUT_MS);
  const maxParseBytes = positive('maxParseBytes', options.maxParseBytes ?? DEFAULT_MAX_PARSE_BYTES);
  const maxRequestBytes = positive('maxRequestBytes', options.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES);
  const maxHeldBytes = positive('maxHeldBytes', options.maxHeldBytes ?? Math.max(DEFAULT_MAX_HELD_BYTES, maxRequestBytes));
  if (maxHeldBytes < maxRequestBytes)
    throw badOption(
      'maxHeldBytes',
      `at least maxRequestBytes (${maxRequestBytes}), so that a call the proxy accepts always fits`,
      maxHeldBytes,
    );
  const maxAnswerBytes = positive('maxAnswerBytes', options.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES);
  const stopGraceMs = nonNegative('stopGraceMs', options.stopGraceMs ?? DEFAULT_STOP_GRACE_MS);
  const linkIdleMs = nonNegative('linkIdleMs', options.linkIdleMs ?? DEFAULT_LINK_IDLE_MS);
  const queue = new RecordingQueue(positive('queueCapacity', options.queueCapacity ?? DEFAULT_QUEUE));
  const held = new HeldBytes(maxHeldBytes);
  const exposed = !isLoopbackHost(host);
  if (exposed && options.allowRemote !== true) {
    throw new ConfigError(
      'host',
      `--host ${host} is not a loopback address: anyone who can reach it could send calls through the proxy and write sessions in the store. Use 127.0.0.1 (the default), or add --allow-remote to mean it`,
    );
  }
  const names = remoteNames(host, options.allowRemote === true, options.allowedHosts ?? []);
  const warn = options.onWarning ?? (() => {});
  const counts: ProxyCounts = {
    forwarded: 0,
    recorded: 0,
    passedThrough: 0,
    upstreamFailures: 0,
    recordErrors: 0,
    refused: 0,
    clientAborts: 0,
    interrupted: 0,
  };
  const onRecordError = (error: unknown, sessionId: string) => {
    counts.recordErrors++;
    options.onRecordError?.(error, sessionId);
  };
  const router = new SessionRouter(
    options.store,
    onRecordError,
    options.newSessionId,
    (named, sibling, owner) =>
      warn(
        `session ${named} is owned by another writer (${owner}): its calls are forwarded and recorded in session ${sibling}, with a note saying why`,
      ),
    { linkIdleMs, now: Date.now },
  );
  const stop = new AbortController();
  const cut = new AbortController();
  // Every call in flight listens for the cut and stops listening when it ends: many concurrent
  // calls are many listeners, not a leak, so Node's warning at 11 would only be noise.
  setMaxListeners(0, cut.signal);
  const call: UpstreamCallContext = {
    agents: { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) },
    timeoutMs,
    maxAnswerBytes,
    cut: cut.signal,
  };

  /** Answers a refused request: counted, told (up to REFUSALS_TOLD lines), nothing forwarded or written. */
  function refuse(response: ServerResponse, protocol: ProxyProtocol | undefined, refusal: ProxyRefusalError, close = false): void {
    counts.refused++;
    if (counts.refused <= REFUSALS_TOLD) warn(`refused a request (HTTP ${refusal.status}): ${refusal.code}: ${refusal.message}`);
    if (counts.refused === REFUSALS_TOLD) warn(`${REFUSALS_TOLD} requests refused; further refusals are counted, not told`);
    sendError(response, protocol, refusal.status, `shadowlog proxy: ${refusal.code}: ${refusal.message}`, { code: refusal.code, close });
  }

  const context: HandlerContext = {
    upstreams,
    names,
    redactHeaders: options.redactHeaders ?? [],
    redactQuery: options.redactQuery ?? [],
    maxParseBytes,
    maxRequestBytes,
    queue,
    held,
    router,
    call,
    counts,
    stop: stop.signal,
    refuse,
  };
  const inFlight = new Set<Promise<void>>();
  const server = createServer({ noDelay: true }, (request, response) => {
    const work = handleRequest(context, request, response).catch((error: unknown) => {
      // A bug or a store that refused a new session: the client still gets an answer in its API's shape.
      try {
        sendError(response, errorShapeOf(request.url ?? ''), 502, `shadowlog proxy: ${messageOf(error)}`);
      } catch {
        response.destroy();
      }
      onRecordError(error, '');
    });
    inFlight.add(work);
    work.finally(() => inFlight.delete(work));
  });

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

  async function shutDown(): Promise<void> {
    stop.abort();
    const stopping = new ProxyStoppingError();
    queue.cancelWaiting(stopping);
    held.cancelWaiting(stopping);
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    // The calls in flight go on for the grace period (or until close is called again), then are cut.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...inFlight]),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, stopGraceMs);
      }),
      new Promise<void>((resolve) => {
        if (cut.signal.aborted) resolve();
        else cut.signal.addEventListener('abort', () => resolve(), { once: true });
      }),
    ]);
    clearTimeout(timer);
    cut.abort();
    await Promise.allSettled([...inFlight]);
    server.closeAllConnections();
    await closed;
    call.agents.http.destroy();
    call.agents.https.destroy();
    await router.close();
  }

  return {
    url: `http://${shownHost}:${address.port}`,
    host: address.address,
    port: address.port,
    exposed,
    get stats() {
      return { ...counts, queuePeak: queue.peak, queueWaits: queue.waited, queueWaiting: queue.waiting, heldBytesWaits: held.waited };
    },
    sessionIds: () => router.list().map((session) => session.id),
    async settled() {
      await Promise.allSettled([...inFlight]);
      await Promise.allSettled(router.list().map((session) => session.settled()));
    },
    close() {
      if (closing !== undefined) {
        cut.abort();
        return closing;
      }
      closing = shutDown();
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

function checkedUpstreams(upstreams: ProxyOptions['upstreams']): Partial<Record<UpstreamName, URL>> {
  const checked: Partial<Record<UpstreamName, URL>> = {};
  for (const name of ['openai', 'anthropic'] as const) {
    const value = upstreams[name];
    if (value === undefined) continue;
    const url = URL.canParse(value) ? new URL(value) : undefined;
    if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.search !== '' || url.hash !== '')
      throw badUpstream(name, redactedUrl(value));
    // Every @ must be the one that ends a userinfo: a password holding / or @ makes the parser read a host and path the operator did not mean.
    const ats = value.split('@').length - 1;
    if (ats !== (url.username !== '' || url.password !== '' ? 1 : 0))
      throw badUpstream(name, redactedUrl(value), 'an @ outside a userinfo: percent-encode a / or @ in a user name or password (%2F, %40)');
    checked[name] = url;
  }
  return checked;
}

function positive(key: string, value: number): number {
  if (!Number.isSafeInteger(value) || value <= 0) throw badOption(key, 'a positive whole number', value);
  return value;
}

function nonNegative(key: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 0) throw badOption(key, 'a whole number, 0 or more', value);
  return value;
}
