// `shadowlog view <id>` as a server: the page at / (the session's structure and every call's
// figures, from one read of the log, before any check), its data by range under /api/ (calls'
// details, events, the record search), and at /events the checks and the session as it grows,
// as server-sent events (each a PageDelta the page merges), from the store's follow machinery.
// It serves the one session it was started for, listens on loopback only unless told otherwise
// in so many words, and answers only requests addressed to it by a loopback name (a page
// elsewhere cannot reach it by rebinding a domain name to 127.0.0.1). A bad request is answered
// 400 with its code as JSON, never with a stack.

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSessionCallMeter, sessionMeterSettings } from '../compaction/session-call-meter.js';
import { ConfigError, ShadowlogError } from '../log/errors.js';
import type { EventTypeRegistry } from '../log/event-types.js';
import type { RendererResolver } from '../spine/replay.js';
import { followSession } from '../store/follow.js';
import type { LogStore } from '../store/log-store.js';
import { structureFrom } from './event-structure.js';
import { pageDeltaOf } from './page-delta.js';
import { renderViewPage } from './page-html.js';
import { requestParameters, ServedSession, ViewRequestError } from './served-session.js';
import { ViewBuilder } from './view-builder.js';
import type { CallPricer, ViewDelta } from './view-data.js';
import { buildViewDocument } from './view-document.js';

export interface ViewServerOptions {
  readonly store: LogStore;
  readonly sessionId: string;
  readonly resolveRenderer: RendererResolver;
  readonly registry?: EventTypeRegistry;
  /** Default 127.0.0.1. Anything but a loopback address needs allowRemote. */
  readonly host?: string;
  /** Default 0: any free port. */
  readonly port?: number;
  /** Listen on a non-loopback address: anyone who can reach it can read the session. */
  readonly allowRemote?: boolean;
  readonly tune?: unknown;
  /** Prices each call from its reported usage; `prices` names the table. */
  readonly priceCall?: CallPricer;
  readonly prices?: { readonly date: string; readonly source: string };
  /** How often to look for new events on a store that cannot be watched (default 200 ms). */
  readonly pollMs?: number;
}

export interface ViewServer {
  readonly url: string;
  readonly host: string;
  readonly port: number;
  close(): Promise<void>;
}

const HEARTBEAT_MS = 15_000;
/** A follow stream sends what its checks found at most this often while it catches up. */
const PROGRESS_MS = 400;
/** A follow stream's checks give the server back to other requests at least this often. */
const YIELD_MS = 25;

export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host);
}

export async function startViewServer(options: ViewServerOptions): Promise<ViewServer> {
  const host = options.host ?? '127.0.0.1';
  if (!isLoopbackHost(host) && options.allowRemote !== true) {
    throw new ConfigError(
      'host',
      `--host ${host} is not a loopback address: anyone who can reach it could read the whole session. Use 127.0.0.1 (the default), or add --allow-remote to mean it`,
    );
  }
  const streams = new Set<AbortController>();
  const session = new ServedSession(options.store, options.sessionId);
  const server = createServer((request, response) => {
    handle(request, response, options, session, streams, () => port).catch((error: unknown) => {
      // A store's failure is named by its code; anything else is not described to the page.
      const known = ShadowlogError.isInstance(error);
      const body = {
        error: { code: known ? error.code : 'INTERNAL', message: known ? error.message : 'the server could not answer this request' },
      };
      if (!known) process.emitWarning(`shadowlog view: ${String(error)}`, { code: 'SHADOWLOG_VIEW_SERVER' });
      if (!response.headersSent) response.writeHead(500, JSON_HEADERS);
      response.end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host.replace(/^\[|\]$/g, ''), () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const shown = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${port}/`,
    host,
    port,
    close: async () => {
      for (const stream of streams) stream.abort();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function addressedToUs(request: IncomingMessage, options: ViewServerOptions, port: number): boolean {
  if (options.allowRemote === true) return true;
  const name = (request.headers.host ?? '').replace(new RegExp(`:${port}$`), '');
  return isLoopbackHost(name);
}

const JSON_HEADERS = {
  'content-type': 'application/json; charset=utf-8',
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-store',
  'cross-origin-resource-policy': 'same-origin',
};

async function handle(
  request: IncomingMessage,
  response: ServerResponse,
  options: ViewServerOptions,
  session: ServedSession,
  streams: Set<AbortController>,
  port: () => number,
): Promise<void> {
  let url: URL;
  try {
    url = new URL(request.url ?? '/', 'http://view.invalid');
  } catch {
    return answer(response, 400, { error: { code: 'INVALID_REQUEST', message: 'the request target is not a path' } });
  }
  if (!addressedToUs(request, options, port()))
    return answer(response, 421, {
      error: { code: 'MISDIRECTED', message: 'this server answers only requests to 127.0.0.1, localhost or [::1]' },
    });
  if (request.method !== 'GET' && request.method !== 'HEAD')
    return answer(response, 405, { error: { code: 'METHOD', message: 'only GET' } });
  try {
    if (url.pathname === '/') return await servePage(response, options, session);
    if (url.pathname === '/events') return await serveEvents(request, response, url, options, session, streams);
    if (url.pathname === '/api/calls') return answer(response, 200, session.callRange(requestParameters(url, ['from', 'to'])));
    if (url.pathname === '/api/events') return answer(response, 200, await session.eventRange(requestParameters(url, ['from', 'to'])));
    if (url.pathname === '/api/search') return answer(response, 200, await session.search(requestParameters(url, ['text', 'to'])));
  } catch (error) {
    if (!(error instanceof ViewRequestError)) throw error;
    return answer(response, 400, { error: { code: error.code, parameter: error.parameter, message: error.message } });
  }
  return answer(response, 404, { error: { code: 'NOT_FOUND', message: 'not found: the page is at /' } });
}

function answer(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, JSON_HEADERS);
  response.end(JSON.stringify(body));
}

async function servePage(response: ServerResponse, options: ViewServerOptions, session: ServedSession): Promise<void> {
  const viewDocument = await buildViewDocument(options.store, options.sessionId, {
    resolveRenderer: options.resolveRenderer,
    live: true,
    // Drawn first, checked after: a long session's page would otherwise wait for every call's replay.
    checkCalls: false,
    ...(options.registry === undefined ? {} : { registry: options.registry }),
    ...(options.tune === undefined ? {} : { tune: options.tune }),
    ...(options.priceCall === undefined ? {} : { priceCall: options.priceCall }),
    ...(options.prices === undefined ? {} : { prices: options.prices }),
  });
  session.built(viewDocument.session.calls, viewDocument.session.toSeq, viewDocument.meterSettings);
  const page = await renderViewPage(viewDocument);
  response.writeHead(200, {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': `${page.contentSecurityPolicy}; frame-ancestors 'none'`,
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-resource-policy': 'same-origin',
    'cache-control': 'no-store',
  });
  response.end(page.html);
}

/**
 * The checks, and the session from event `from` on (Last-Event-ID on a reconnect). The builder
 * reads the session from 0, since a call's check needs its whole prefix: while it catches up,
 * a message every PROGRESS_MS brings the calls checked (and metered) since the last, the chain
 * once it is recomputed, and the structure of the events after `from`; after, each message
 * what landed since.
 */
async function serveEvents(
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
  options: ViewServerOptions,
  session: ServedSession,
  streams: Set<AbortController>,
): Promise<void> {
  const parameters = requestParameters(url, ['from']);
  const given = request.headers['last-event-id'] ?? parameters.get('from') ?? '0';
  if (typeof given !== 'string' || !/^(0|[1-9]\d{0,14})$/.test(given)) {
    throw new ViewRequestError('INVALID_RANGE', 'from', `from must be a seq (0, 1, 2, …), found ${JSON.stringify(given)}`);
  }
  const from = Number(given);
  // The meter as the page's first document had it: the policies it read name its estimator.
  const callMeter = await createSessionCallMeter(session.meterSettings ?? sessionMeterSettings([]));
  const stopping = new AbortController();
  streams.add(stopping);
  request.on('close', () => stopping.abort());
  response.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    connection: 'keep-alive',
  });
  response.write(': following\n\n');
  const heartbeat = setInterval(() => response.write(': still following\n\n'), HEARTBEAT_MS);
  const builder = new ViewBuilder({
    sessionId: options.sessionId,
    resolveRenderer: options.resolveRenderer,
    callMeter,
    ...(options.priceCall === undefined ? {} : { priceCall: options.priceCall }),
    ...(options.registry === undefined ? {} : { registry: options.registry }),
  });
  try {
    const follower = followSession(options.store, options.sessionId, {
      signal: stopping.signal,
      ...(options.pollMs === undefined ? {} : { pollMs: options.pollMs }),
    });
    const stored = (await options.store.head(options.sessionId))?.nextSeq ?? 0;
    let caughtUp = false;
    let sentAt = Date.now();
    let yieldedAt = Date.now();
    const send = (delta: ViewDelta) => {
      session.checkedCalls(delta.calls, builder.nextSeq);
      // The structure of the events the page does not hold yet; before `from`, only the calls and what was checked.
      const fromSeq = Math.max(delta.fromSeq, from);
      const sent = {
        ...pageDeltaOf(delta),
        fromSeq,
        toSeq: Math.max(delta.toSeq, fromSeq),
        structure: structureFrom(delta.structure, delta.fromSeq, fromSeq),
      };
      response.write(`id: ${Math.max(builder.nextSeq, from)}\nevent: delta\ndata: ${JSON.stringify(sent)}\n\n`);
      sentAt = Date.now();
    };
    for await (const page of follower) {
      for (const event of page) {
        builder.apply(event);
        // The checks take the process for a while: the page's own requests are answered in between.
        if (Date.now() - yieldedAt >= YIELD_MS) {
          await new Promise((resume) => setImmediate(resume));
          yieldedAt = Date.now();
          if (stopping.signal.aborted) return;
        }
      }
      // Caught up with what was stored when the stream began, then each page as it lands; before, every PROGRESS_MS.
      caughtUp ||= builder.nextSeq >= stored;
      if (caughtUp || Date.now() - sentAt >= PROGRESS_MS) send(builder.take());
    }
  } catch (error) {
    const message = ShadowlogError.isInstance(error) ? `${error.code}: ${error.message}` : String(error);
    response.write(`event: failure\ndata: ${JSON.stringify(message)}\n\n`);
  } finally {
    clearInterval(heartbeat);
    streams.delete(stopping);
    response.end();
  }
}
