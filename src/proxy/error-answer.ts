// The answers the proxy gives itself (a refusal, an upstream it could not reach): a JSON error
// body in the client's API's own shape, so that its SDK reads it as it reads the provider's.

import type { ServerResponse } from 'node:http';
import type { ProxyProtocol } from './protocols.js';

/** Sends the error, unless the response has begun or its connection is gone (then it is only ended). `close`: end the connection after it (a body left unread). */
export function sendError(
  response: ServerResponse,
  protocol: ProxyProtocol | undefined,
  status: number,
  message: string,
  options: { readonly code?: string; readonly close?: boolean } = {},
): void {
  if (response.headersSent || response.destroyed) {
    response.destroy();
    return;
  }
  const body =
    protocol?.errorBody(status, message, options.code) ??
    JSON.stringify({
      error: {
        message,
        type: status < 500 ? 'invalid_request_error' : 'proxy_error',
        ...(options.code === undefined ? {} : { code: options.code }),
      },
    });
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    ...(options.close === true ? { connection: 'close' } : {}),
  });
  response.end(body);
}
