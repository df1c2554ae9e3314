// Reading the body of a request the proxy records (it must have the whole body to forward its
// digest and record it): bounded by maxRequestBytes, so that a client cannot make the proxy hold
// an unbounded body in memory; and a client that goes away before the end of its upload is told
// apart from a failure of the proxy, since it is the client's business. A body of declared length
// is read into one buffer of that length (no second copy to join the parts).

import type { IncomingMessage } from 'node:http';
import { ShadowlogError } from '../log/errors.js';
import { ProxyRequestTooLargeError, ProxyStoppingError } from './proxy-refusals.js';

/** The client closed its connection before its request body was complete: nothing was forwarded. */
export class ProxyClientAbortedError extends ShadowlogError {
  constructor() {
    super('PROXY_CLIENT_ABORTED', 'the client closed its connection before its request body was complete; nothing was forwarded');
  }
}

/** The body's declared length (content-length), if it has one. */
export function declaredLength(request: IncomingMessage): number | undefined {
  const declared = request.headers['content-length'];
  return declared !== undefined && /^\d+$/.test(declared) ? Number(declared) : undefined;
}

/**
 * The whole body; rejects with ProxyRequestTooLargeError past `limit` bytes (declared or sent),
 * ProxyClientAbortedError when the client went away, ProxyStoppingError when `stop` aborts first.
 */
export function readBody(request: IncomingMessage, limit: number, stop?: AbortSignal): Promise<Buffer> {
  const declared = declaredLength(request);
  if (declared !== undefined && declared > limit) {
    return Promise.reject(new ProxyRequestTooLargeError(limit, `${declared} bytes (its content-length)`));
  }
  return new Promise<Buffer>((resolve, reject) => {
    let parts: Buffer[] = [];
    // Node's parser delivers no more than the content-length: the bytes go straight into their place.
    let whole = declared === undefined ? undefined : Buffer.allocUnsafe(declared);
    let size = 0;
    let done = false;
    const onStop = () => fail(new ProxyStoppingError());
    const fail = (error: ShadowlogError) => {
      if (done) return;
      done = true;
      stop?.removeEventListener('abort', onStop);
      parts = [];
      whole = undefined;
      reject(error);
    };
    if (stop?.aborted === true) return onStop();
    stop?.addEventListener('abort', onStop, { once: true });
    request.on('data', (part: Buffer) => {
      if (done) return;
      if (size + part.length > limit || (whole !== undefined && size + part.length > whole.length)) {
        // What else the client sends is read and dropped until the 413 goes out and the connection closes.
        fail(new ProxyRequestTooLargeError(limit, `more than that (a chunked upload)`));
        return;
      }
      if (whole === undefined) parts.push(part);
      else part.copy(whole, size);
      size += part.length;
    });
    request.on('end', () => {
      if (done) return;
      done = true;
      stop?.removeEventListener('abort', onStop);
      if (whole !== undefined) resolve(size === whole.length ? whole : whole.subarray(0, size));
      else resolve(parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts));
    });
    request.on('error', () => fail(new ProxyClientAbortedError()));
    request.on('close', () => {
      if (!request.complete) fail(new ProxyClientAbortedError());
    });
  });
}
