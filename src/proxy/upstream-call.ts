// One request sent on to the upstream, and its answer streamed back to the client chunk by chunk
// as it arrives: a recorded call (forwardCall), whose outcome is read from a bounded copy once
// the client has its bytes, or a request passed through unrecorded (passThrough). Whatever the
// upstream sends, malformed or endless, becomes an answer or an error for this one client: no
// handler here throws, since a throw in an event handler would end the whole proxy.

import type { Agent as HttpAgent, IncomingMessage, ServerResponse } from 'node:http';
import { request as httpRequest } from 'node:http';
import { type Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { Duplex } from 'node:stream';
import { messageOf } from '../log/errors.js';
import { AnswerCopy } from './answer-copy.js';
import { failure, outcomeOf, tooLarge } from './answer-outcome.js';
import { sendError } from './error-answer.js';
import { passedOn, SESSION_HEADER } from './headers.js';
import type { ProxyProtocol } from './protocols.js';
import type { CallOutcome } from './proxy-session.js';
import type { UpstreamTarget } from './request-target.js';
import { upstreamHead } from './upstream-head.js';

export interface UpstreamCallContext {
  readonly agents: { readonly http: HttpAgent; readonly https: HttpsAgent };
  /** How long the upstream may stay silent, before its headers or between chunks. */
  readonly timeoutMs: number;
  /** The most of an answer the proxy keeps for the record, as received and as decoded. */
  readonly maxAnswerBytes: number;
  /** Aborted when the proxy stops and its grace period is over: every call still in flight is cut. */
  readonly cut: AbortSignal;
}

/** Forwards a recorded call; `finish` gets its outcome once (after the client has the answer's end). */
export function forwardCall(
  context: UpstreamCallContext,
  request: IncomingMessage,
  response: ServerResponse,
  protocol: ProxyProtocol,
  url: UpstreamTarget,
  body: Buffer,
  finish: (outcome: CallOutcome) => void,
): Promise<void> {
  return new Promise<void>((resolve) => {
    let done = false;
    let streamed = false;
    /** An informational head (1xx) arrived: the upstream has the request, and an answer was begun. */
    let informed = false;
    /** The answer, once its head arrived. */
    let answered: IncomingMessage | undefined;
    const copy = new AnswerCopy(context.maxAnswerBytes);
    const settle = (outcome: CallOutcome | Promise<CallOutcome>) => {
      if (done) return;
      done = true;
      context.cut.removeEventListener('abort', onCut);
      Promise.resolve(outcome)
        .then(finish)
        .catch((error: unknown) => finish(failure('PROXY_INTERNAL', `the proxy could not read the answer: ${messageOf(error)}`, undefined)))
        .finally(resolve);
    };
    const partial = (): { format: 'sse' | 'json'; text: string } | undefined =>
      copy.empty || copy.overflowed ? undefined : { format: streamed ? 'sse' : 'json', text: copy.bytes().toString('utf8') };
    const overCap = () =>
      copy.overflowed
        ? `; the ${copy.received} bytes that arrived are more than the proxy keeps (${context.maxAnswerBytes}, --max-answer-bytes), so none is kept`
        : '';
    const upstream = send(context, request, url);
    // After the headers went out the client gets what the upstream sent, cut where it was cut.
    const cut = (timedOut: boolean, why: string) => {
      response.destroy();
      settle(
        failure(
          timedOut ? 'PROXY_UPSTREAM_TIMEOUT' : 'PROXY_STREAM_CUT',
          `${timedOut ? `the upstream went silent for ${context.timeoutMs} ms in the middle of its answer` : `the upstream's answer was cut: ${why}`}${overCap()}`,
          response.statusCode,
          partial(),
          true,
        ),
      );
    };
    // The proxy stops: what arrived is recorded, and the client's connection is cut (or told, before any of the answer).
    const onCut = () => {
      if (done) return;
      const began = response.headersSent;
      settle(
        failure(
          'PROXY_INTERRUPTED',
          `the proxy was stopped, and cut this call before its answer was complete${overCap()}`,
          began ? response.statusCode : undefined,
          partial(),
          true,
        ),
      );
      upstream.destroy();
      if (began) response.destroy();
      else sendError(response, protocol, 503, 'shadowlog proxy: the proxy was stopped before the upstream answered', { close: true });
    };
    context.cut.addEventListener('abort', onCut);
    if (context.cut.aborted) queueMicrotask(onCut);
    upstream.on('information', () => {
      informed = true;
    });
    upstream.on('error', (error: NodeJS.ErrnoException) => {
      if (done) return;
      const timedOut = error instanceof UpstreamTimeout;
      // Bytes after a complete answer (a 204 followed by junk) belong to no answer: the answer ends as it was sent.
      if (answered?.complete === true && !timedOut) return;
      if (response.headersSent) return cut(timedOut, error.message);
      if (informed && !timedOut) {
        // An answer was begun (a 1xx head) and ended before its final head: cut, not unreachable.
        const message = `shadowlog proxy: the upstream at ${url.origin} sent an informational 1xx head, then ended its answer before the final one (${error.message})`;
        sendError(response, protocol, 502, message);
        return settle(failure('PROXY_STREAM_CUT', message, undefined, undefined, true));
      }
      const malformed = isParseError(error);
      const message = timedOut
        ? `shadowlog proxy: the upstream at ${url.origin} sent nothing for ${context.timeoutMs} ms`
        : malformed
          ? `shadowlog proxy: the upstream at ${url.origin} sent an answer that is not valid HTTP (${error.code}: ${error.message})`
          : `shadowlog proxy: the upstream at ${url.origin} could not be reached: ${error.message}`;
      sendError(response, protocol, timedOut ? 504 : 502, message);
      const code = timedOut ? 'PROXY_UPSTREAM_TIMEOUT' : malformed ? 'PROXY_UPSTREAM_MALFORMED' : 'PROXY_UPSTREAM_UNREACHABLE';
      settle(failure(code, message, undefined, undefined, !malformed));
    });
    const malformedHead = (problem: string) => {
      const message = `shadowlog proxy: the upstream at ${url.origin} sent an answer that cannot be passed on: ${problem}`;
      sendError(response, protocol, 502, message);
      settle(failure('PROXY_UPSTREAM_MALFORMED', message, undefined));
    };
    upstream.on('upgrade', (_answer: IncomingMessage, socket: Duplex) => {
      socket.destroy();
      malformedHead(UNASKED_UPGRADE);
    });
    upstream.on('response', (answer) => {
      answered = answer;
      const head = upstreamHead(answer);
      if (!head.ok) {
        answer.destroy();
        return malformedHead(head.problem);
      }
      streamed = String(answer.headers['content-type'] ?? '').includes('text/event-stream');
      if (!writeHead(response, head, answer)) {
        return settle(
          failure('PROXY_UPSTREAM_MALFORMED', `the upstream at ${url.origin} sent a head the proxy could not pass on`, undefined),
        );
      }
      if (streamed) response.flushHeaders();
      answer.on('data', (chunk: Buffer) => {
        copy.add(chunk);
        if (!response.write(chunk)) {
          answer.pause();
          response.once('drain', () => answer.resume());
        }
      });
      answer.on('end', () => {
        response.end();
        settle(
          copy.overflowed
            ? tooLarge(`${copy.received} bytes arrived, more than ${context.maxAnswerBytes}`, head.status)
            : outcomeOf(protocol, { status: head.status, headers: answer.headers, body: copy.bytes() }, context.maxAnswerBytes),
        );
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
          `the client closed the connection before the answer was complete${overCap()}`,
          response.headersSent ? response.statusCode : undefined,
          partial(),
        ),
      );
    });
    upstream.end(body);
  });
}

/** Passes a request the proxy does not record through to the upstream, both ways as streams; cut when the proxy stops. */
export function passThrough(
  context: UpstreamCallContext,
  request: IncomingMessage,
  response: ServerResponse,
  url: UpstreamTarget,
): Promise<void> {
  return new Promise<void>((resolve) => {
    const upstream = send(context, request, url);
    const onCut = () => {
      upstream.destroy();
      if (response.headersSent) response.destroy();
      else sendError(response, undefined, 503, 'shadowlog proxy: the proxy was stopped before the upstream answered', { close: true });
      resolve();
    };
    if (context.cut.aborted) queueMicrotask(onCut);
    else context.cut.addEventListener('abort', onCut, { once: true });
    response.on('close', () => context.cut.removeEventListener('abort', onCut));
    const fail = (status: number, message: string) => {
      sendError(response, undefined, status, message);
      resolve();
    };
    let answered: IncomingMessage | undefined;
    upstream.on('error', (error: NodeJS.ErrnoException) => {
      // Bytes after a complete answer (a 204 followed by junk) belong to no answer: the answer ends as it was sent.
      if (answered?.complete === true && !(error instanceof UpstreamTimeout)) return;
      if (error instanceof UpstreamTimeout)
        return fail(504, `shadowlog proxy: the upstream at ${url.origin} sent nothing for ${context.timeoutMs} ms`);
      if (isParseError(error))
        return fail(
          502,
          `shadowlog proxy: the upstream at ${url.origin} sent an answer that is not valid HTTP (${error.code}: ${error.message})`,
        );
      fail(502, `shadowlog proxy: the upstream at ${url.origin} could not be reached: ${error.message}`);
    });
    upstream.on('upgrade', (_answer: IncomingMessage, socket: Duplex) => {
      socket.destroy();
      fail(502, `shadowlog proxy: the upstream at ${url.origin} sent an answer that cannot be passed on: ${UNASKED_UPGRADE}`);
    });
    upstream.on('response', (answer) => {
      answered = answer;
      const head = upstreamHead(answer);
      if (!head.ok) {
        answer.destroy();
        return fail(502, `shadowlog proxy: the upstream at ${url.origin} sent an answer that cannot be passed on: ${head.problem}`);
      }
      if (!writeHead(response, head, answer)) return resolve();
      answer.pipe(response);
      answer.on('end', resolve);
      answer.on('error', () => {
        response.destroy();
        resolve();
      });
      answer.on('close', () => {
        if (!answer.complete) response.destroy();
        resolve();
      });
    });
    // The client went away: so does the request upstream.
    response.on('close', () => {
      if (!response.writableFinished) upstream.destroy();
      resolve();
    });
    request.pipe(upstream);
  });
}

/** The request to the upstream: its target the client's, byte for byte, under the upstream's prefix (never re-parsed as a URL). */
function send(context: UpstreamCallContext, request: IncomingMessage, url: UpstreamTarget) {
  const upstream = (url.https ? httpsRequest : httpRequest)({
    ...url.options,
    method: request.method,
    headers: passedOn(request.rawHeaders, [SESSION_HEADER, 'host']),
    agent: url.https ? context.agents.https : context.agents.http,
  });
  upstream.setTimeout(context.timeoutMs, () => upstream.destroy(new UpstreamTimeout(context.timeoutMs)));
  return upstream;
}

/** Writes the checked head; false (the connection cut) if Node refuses it all the same. */
function writeHead(
  response: ServerResponse,
  head: Extract<ReturnType<typeof upstreamHead>, { ok: true }>,
  answer: IncomingMessage,
): boolean {
  try {
    response.writeHead(head.status, head.reason, head.headers);
    return true;
  } catch {
    answer.destroy();
    response.destroy();
    return false;
  }
}

// The proxy passes no Upgrade header on, so a 101 is an answer to a question nobody asked; without a listener Node would leave the call waiting forever.
const UNASKED_UPGRADE = 'a 101 Switching Protocols, though the proxy asked for no upgrade';

/** An error of Node's HTTP parser: the upstream's bytes are not HTTP. */
function isParseError(error: NodeJS.ErrnoException): boolean {
  return typeof error.code === 'string' && error.code.startsWith('HPE_');
}

class UpstreamTimeout extends Error {
  constructor(ms: number) {
    super(`no answer from the upstream for ${ms} ms`);
  }
}
