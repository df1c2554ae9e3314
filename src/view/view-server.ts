// `shadowlog view <id>` as a server: the page at /, and at /events the session as it grows,
// as server-sent events (each a ViewDelta the page merges), from the store's follow machinery.
// It listens on loopback only unless told otherwise in so many words, and answers only
// requests addressed to it by a loopback name (a page elsewhere cannot reach it by rebinding
// a domain name to 127.0.0.1).

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSessionCallMeter, readSessionMeterSettings } from '../compaction/session-call-meter.js';
import { ConfigError, messageOf, ShadowlogError } from '../log/errors.js';
import type { EventTypeRegistry } from '../log/event-types.js';
import type { RendererResolver } from '../spine/replay.js';
import { followSession } from '../store/follow.js';
import type { LogStore } from '../store/log-store.js';
import { renderViewPage } from './page-html.js';
import { ViewBuilder } from './view-builder.js';
import type { CallPricer } from './view-data.js';
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
  const server = createServer((request, response) => {
    handle(request, response, options, streams, () => port).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
      response.end(messageOf(error));
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

async function handle(
  request: IncomingMessage,
  response: ServerResponse,
  options: ViewServerOptions,
  streams: Set<AbortController>,
  port: () => number,
): Promise<void> {
  const url = new URL(request.url ?? '/', 'http://view.invalid');
  const plain = (status: number, text: string) => {
    response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' });
    response.end(`${text}\n`);
  };
  if (!addressedToUs(request, options, port())) return plain(421, 'this server answers only requests to 127.0.0.1, localhost or [::1]');
  if (request.method !== 'GET' && request.method !== 'HEAD') return plain(405, 'only GET');
  if (url.pathname === '/') return servePage(response, options);
  if (url.pathname === '/events') return serveEvents(request, response, url, options, streams);
  return plain(404, 'not found: the page is at /');
}

async function servePage(response: ServerResponse, options: ViewServerOptions): Promise<void> {
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
 * The session from event `from` on (Last-Event-ID on a reconnect). The builder reads the
 * session from 0, since a call's check needs its whole prefix; its first message holds every
 * call so far with its check (the page was drawn before them) and the events after `from`, and
 * each later one what landed since.
 */
async function serveEvents(
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
  options: ViewServerOptions,
  streams: Set<AbortController>,
): Promise<void> {
  const given = request.headers['last-event-id'] ?? url.searchParams.get('from') ?? '0';
  const from = typeof given === 'string' && /^\d{1,15}$/.test(given) ? Number(given) : Number.NaN;
  if (!Number.isSafeInteger(from)) {
    response.writeHead(400, { 'content-type': 'text/plain; charset=utf-8' });
    response.end('from must be a seq (0, 1, 2, …)\n');
    return;
  }
  // The meter as the page's first document had it: the policies recorded so far name its estimator.
  const callMeter = await createSessionCallMeter(await readSessionMeterSettings(options.store, options.sessionId));
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
    let caughtUp = false;
    for await (const page of follower) {
      for (const event of page) builder.apply(event);
      if (builder.nextSeq < from) continue;
      const delta = builder.take();
      // The first message: every call checked (and compaction told) so far, and the events the page does not hold.
      const sent = caughtUp ? delta : { ...delta, fromSeq: from, events: delta.events.slice(from - delta.fromSeq) };
      caughtUp = true;
      response.write(`id: ${builder.nextSeq}\nevent: delta\ndata: ${JSON.stringify(sent)}\n\n`);
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
