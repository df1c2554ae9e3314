// One request through the proxy, from its head to its outcome's write: checked (target, Host,
// Origin, method override, session header), passed through when it is no call the proxy records;
// otherwise its body is read within the held-bytes bound, it takes a queue place, is routed to
// its session, forwarded, and handed to the session with its outcome. Each recorded call ends
// counted once: recorded, or a record error.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { isSessionId } from '../log/session-id.js';
import { nodeSha256HexOfBytes } from '../store/node-sha256.js';
import { failure } from './answer-outcome.js';
import { addressingRefusal } from './client-checks.js';
import { recordedHeaders, SESSION_HEADER } from './headers.js';
import type { HeldBytes } from './held-bytes.js';
import { errorShapeOf, type ProxyProtocol, type UpstreamName } from './protocols.js';
import {
  ProxyMethodOverrideError,
  ProxyNoUpstreamError,
  ProxyRefusalError,
  ProxyRequestTooLargeError,
  ProxySessionHeaderError,
  ProxyStoppingError,
} from './proxy-refusals.js';
import type { CallOutcome, ReceivedCall } from './proxy-session.js';
import type { RecordingQueue } from './recording-queue.js';
import { declaredLength, ProxyClientAbortedError, readBody } from './request-body.js';
import { UnreadableRequestError } from './request-notes.js';
import { type CheckedTarget, checkTarget, recordedProtocol, upstreamTarget } from './request-target.js';
import type { SessionRouter } from './session-router.js';
import { forwardCall, passThrough, type UpstreamCallContext } from './upstream-call.js';
import { redactedTarget } from './url-redaction.js';

export interface ProxyCounts {
  forwarded: number;
  recorded: number;
  passedThrough: number;
  upstreamFailures: number;
  recordErrors: number;
  refused: number;
  clientAborts: number;
  interrupted: number;
}

export interface HandlerContext {
  readonly upstreams: Partial<Record<UpstreamName, URL>>;
  readonly names: ReadonlySet<string>;
  readonly redactHeaders: readonly string[];
  readonly redactQuery: readonly string[];
  readonly maxParseBytes: number;
  readonly maxRequestBytes: number;
  readonly queue: RecordingQueue;
  readonly held: HeldBytes;
  readonly router: SessionRouter;
  readonly call: UpstreamCallContext;
  readonly counts: ProxyCounts;
  /** Aborted once the proxy is told to stop: a request not yet forwarded is refused (PROXY_STOPPING), one forwarded goes on until the cut. */
  readonly stop: AbortSignal;
  refuse(response: ServerResponse, protocol: ProxyProtocol | undefined, refusal: ProxyRefusalError, close?: boolean): void;
}

// Headers by which a server may be told to read a request as another method.
const METHOD_OVERRIDES = ['x-http-method-override', 'x-http-method', 'x-method-override'];

// Outcomes that are no failure of the upstream: the client went away, the proxy was stopped, the proxy failed.
const NOT_UPSTREAM = new Set(['PROXY_CLIENT_CLOSED', 'PROXY_INTERRUPTED', 'PROXY_INTERNAL']);

export async function handleRequest(context: HandlerContext, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const { counts } = context;
  const method = request.method ?? 'GET';
  let target: CheckedTarget;
  let protocol: ProxyProtocol | undefined;
  try {
    if (context.stop.aborted) throw new ProxyStoppingError();
    target = checkTarget(request.url ?? '/');
    const refusal = addressingRefusal(request.headers, context.names);
    if (refusal !== undefined) throw refusal;
    const override = METHOD_OVERRIDES.find((name) => request.headers[name] !== undefined);
    if (override !== undefined) throw new ProxyMethodOverrideError(override);
    protocol = recordedProtocol(method, target);
  } catch (error) {
    if (!ProxyRefusalError.isInstance(error)) throw error;
    return context.refuse(response, errorShapeOf(request.url ?? ''), error, !request.complete);
  }
  const upstreamName: UpstreamName =
    protocol?.upstream ??
    (target.path.startsWith('/v1/messages') || request.headers['anthropic-version'] !== undefined ? 'anthropic' : 'openai');
  const base = context.upstreams[upstreamName];
  if (base === undefined) return context.refuse(response, protocol, new ProxyNoUpstreamError(upstreamName), !request.complete);
  const url = upstreamTarget(base, target);
  if (protocol === undefined) {
    counts.passedThrough++;
    return passThrough(context.call, request, response, url);
  }
  const named = headerValue(request.headers[SESSION_HEADER]);
  // Refused before anything is forwarded or written: the client named a session no store can hold.
  if (named !== undefined && !isSessionId(named))
    return context.refuse(response, protocol, new ProxySessionHeaderError(SESSION_HEADER, named), true);
  const declared = declaredLength(request);
  if (declared !== undefined && declared > context.maxRequestBytes)
    return context.refuse(
      response,
      protocol,
      new ProxyRequestTooLargeError(context.maxRequestBytes, `${declared} bytes (its content-length)`),
      true,
    );

  // The body's bytes are held from before it is read until its request is written (or nothing is).
  let reservation: Awaited<ReturnType<HeldBytes['take']>>;
  try {
    reservation = await context.held.take(declared ?? context.maxRequestBytes);
  } catch (error) {
    if (!ProxyRefusalError.isInstance(error)) throw error;
    return context.refuse(response, protocol, error, true);
  }
  let handedOver = false;
  try {
    let body: Buffer;
    try {
      // An upload under way when the proxy is told to stop goes on until the cut (its client may still abandon it).
      body = await readBody(request, context.maxRequestBytes, context.call.cut);
    } catch (error) {
      // The client's own business: counted, and the proxy goes on quietly.
      if (ProxyClientAbortedError.isInstance(error)) {
        counts.clientAborts++;
        return;
      }
      if (ProxyRefusalError.isInstance(error)) return context.refuse(response, protocol, error, true);
      throw error;
    }
    reservation.shrink(body.length);
    const { headers, redacted } = recordedHeaders(request.headers, context.redactHeaders);
    const call: ReceivedCall = {
      protocol,
      path: redactedTarget(`${target.path}${target.query}`, context.redactQuery),
      body,
      digest: nodeSha256HexOfBytes(body),
      request: readRequest(protocol, body, context.maxParseBytes),
      headers,
      redactedHeaders: redacted,
    };
    let giveBack: () => void;
    try {
      if (context.stop.aborted) throw new ProxyStoppingError();
      giveBack = await context.queue.take();
    } catch (error) {
      if (!ProxyRefusalError.isInstance(error)) throw error;
      return context.refuse(response, protocol, error, true);
    }
    let routed: Awaited<ReturnType<SessionRouter['route']>>;
    try {
      routed = await context.router.route(call, named);
    } catch (error) {
      giveBack();
      if (ProxyRefusalError.isInstance(error)) return context.refuse(response, protocol, error);
      throw error;
    }
    handedOver = true;
    let finished = false;
    const finish = (outcome: CallOutcome) => {
      if (finished) return;
      finished = true;
      if (outcome.kind === 'failure') {
        if (outcome.code === 'PROXY_INTERRUPTED') counts.interrupted++;
        else if (!NOT_UPSTREAM.has(outcome.code)) counts.upstreamFailures++;
      }
      // Counted once the writes are done: recorded, or (reported by the session) a record error.
      routed.session
        .finish(call, outcome)
        .then((written) => {
          if (written) counts.recorded++;
        })
        .finally(() => {
          giveBack();
          reservation.release();
        });
    };
    counts.forwarded++;
    try {
      await forwardCall(context.call, request, response, protocol, url, body, finish);
    } finally {
      // A call routed to a session always gets an outcome: the session holds its place until it does.
      if (!finished) finish(failure('PROXY_INTERNAL', 'the proxy failed while forwarding this call', undefined));
    }
  } finally {
    if (!handedOver) reservation.release();
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
