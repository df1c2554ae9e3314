// The requests the proxy refuses before anything is forwarded or written (docs/proxy.md,
// "Security model"): each is a typed error with the HTTP status the client gets, in its API's
// error shape. A refusal is counted and told through onWarning; it opens no session.

import { ShadowlogError } from '../log/errors.js';

/** A request refused before it was forwarded: nothing reached the upstream, nothing was written. */
export class ProxyRefusalError extends ShadowlogError {
  /** The HTTP status the client gets. */
  readonly status: number;
  constructor(code: string, status: number, message: string) {
    super(code, message);
    this.status = status;
  }
}

/** A request target that is not one path on the upstream (request-target.ts), or a recorded endpoint spelled another way. */
export class ProxyTargetRefusedError extends ProxyRefusalError {
  readonly target: string;
  constructor(target: string, why: string) {
    super(
      'PROXY_TARGET_REFUSED',
      400,
      `the request target ${shownText(target)} ${why}; nothing was forwarded (a client names a plain path, such as /v1/messages, which the proxy sends byte for byte to its upstream)`,
    );
    this.target = target;
  }
}

/** A Host header that names something else than this proxy (a domain name rebound to 127.0.0.1, say), or is no name and port at all. */
export class ProxyHostRefusedError extends ProxyRefusalError {
  readonly host: string;
  constructor(host: string, allowed: readonly string[], malformed = false) {
    super(
      'PROXY_HOST_REFUSED',
      421,
      malformed
        ? `the Host header ${shownText(host)} is not a host name (or a bracketed IPv6 address) with at most a port of digits, so it names no proxy`
        : `the Host header ${shownText(host)} does not name this proxy (it answers to ${allowed.join(', ')}); a web page cannot reach it by rebinding a domain name to this address`,
    );
    this.host = host;
  }
}

/** A request a web page made (it carries Origin): a browser's "simple" POST needs no preflight, and a preflight is one too. */
export class ProxyOriginRefusedError extends ProxyRefusalError {
  readonly origin: string;
  constructor(origin: string) {
    super(
      'PROXY_ORIGIN_REFUSED',
      403,
      `a request from the web page at ${shownText(origin)} is refused: the proxy serves programs (SDKs, agents), which send no Origin, and no web page may have calls forwarded and recorded through it`,
    );
    this.origin = origin;
  }
}

/** A request that asks a server to read it as another method (X-HTTP-Method-Override and its kin): it could make a call the proxy does not record. */
export class ProxyMethodOverrideError extends ProxyRefusalError {
  constructor(header: string) {
    super(
      'PROXY_METHOD_OVERRIDE',
      400,
      `the ${header} header is refused: a server that honours it would read the request as another method, and the proxy decides what it records by the method it sees`,
    );
  }
}

/** A call for an API whose upstream the proxy was not given: nothing to forward it to. */
export class ProxyNoUpstreamError extends ProxyRefusalError {
  constructor(upstream: string) {
    super(
      'PROXY_NO_UPSTREAM',
      502,
      `no ${upstream} upstream is configured (start the proxy with --upstream-${upstream} URL); the request was not forwarded`,
    );
  }
}

/** A request that arrived, or was still waiting to be forwarded, when the proxy was told to stop. */
export class ProxyStoppingError extends ProxyRefusalError {
  constructor() {
    super('PROXY_STOPPING', 503, 'the proxy is stopping; the request was not forwarded');
  }
}

/** An x-shadowlog-session header that names a session whose log no shadowlog proxy started (a harness's session, an import of one). */
export class ProxyForeignSessionError extends ProxyRefusalError {
  readonly sessionId: string;
  constructor(sessionId: string, startedBy: string) {
    super(
      'PROXY_FOREIGN_SESSION',
      409,
      `session ${sessionId} was not started by a shadowlog proxy (its session/start names ${shownText(startedBy)}), so the proxy will not add calls to it; name a new session, or one a proxy started`,
    );
    this.sessionId = sessionId;
  }
}

/** An x-shadowlog-session header that is not a session id. */
export class ProxySessionHeaderError extends ProxyRefusalError {
  constructor(header: string, value: string) {
    super(
      'PROXY_BAD_SESSION_HEADER',
      400,
      `the ${header} header must match [A-Za-z0-9][A-Za-z0-9._-]{0,127}, found ${shownText(value.slice(0, 80))}`,
    );
  }
}

/** A request body larger than the proxy reads (`maxRequestBytes`). */
export class ProxyRequestTooLargeError extends ProxyRefusalError {
  readonly limit: number;
  constructor(limit: number, found: string) {
    super(
      'PROXY_REQUEST_TOO_LARGE',
      413,
      `the request body is ${found}, more than the ${limit} bytes the proxy accepts (--max-request-bytes); it was not forwarded`,
    );
    this.limit = limit;
  }
}

/**
 * A value a client or upstream chose, as a message may show it: JSON-quoted (control characters
 * escaped), DEL and the C1 controls escaped too (a terminal reads \x9b as an escape), and cut at
 * 200 characters.
 */
export function shownText(value: string): string {
  const cut = value.length > 200 ? `${value.slice(0, 200)}…` : value;
  return JSON.stringify(cut).replace(/[\u007f-\u009f]/g, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
