// Reading the body of a request the proxy records (it must have the whole body to forward its
// digest and record it): bounded by maxRequestBytes, so that a client cannot make the proxy hold
// an unbounded body in memory; and a client that goes away before the end of its upload is told
// apart from a failure of the proxy, since it is the client's business.

import type { IncomingMessage } from 'node:http';
import { ShadowlogError } from '../log/errors.js';
import { ProxyRequestTooLargeError } from './proxy-refusals.js';

/** The client closed its connection before its request body was complete: nothing was forwarded. */
export class ProxyClientAbortedError extends ShadowlogError {
  constructor() {
    super('PROXY_CLIENT_ABORTED', 'the client closed its connection before its request body was complete; nothing was forwarded');
  }
}

/** The whole body; rejects with ProxyRequestTooLargeError past `limit` bytes (declared or sent), ProxyClientAbortedError when the client went away. */
export function readBody(request: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = request.headers['content-length'];
  if (declared !== undefined && /^\d+$/.test(declared) && Number(declared) > limit) {
    return Promise.reject(new ProxyRequestTooLargeError(limit, `${declared} bytes (its content-length)`));
  }
  return new Promise<Buffer>((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    let done = false;
    const fail = (error: ShadowlogError) => {
      if (done) return;
      done = true;
      parts.length = 0;
      reject(error);
    };
    request.on('data', (part: Buffer) => {
      if (done) return;
      size += part.length;
      if (size > limit) {
        // What else the client sends is read and dropped until the 413 goes out and the connection closes.
        fail(new ProxyRequestTooLargeError(limit, `more than that (a chunked upload)`));
        return;
      }
      parts.push(part);
    });
    request.on('end', () => {
      if (done) return;
      done = true;
      resolve(parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts));
    });
    request.on('error', () => fail(new ProxyClientAbortedError()));
    request.on('close', () => {
      if (!request.complete) fail(new ProxyClientAbortedError());
    });
  });
}
