// The status line and headers of an upstream's answer, checked before the proxy writes them to
// its client: Node's HTTP parser lets through a status code below 100 and bytes in the reason
// phrase (DEL, control characters) that its writer then throws on, and a throw in an event
// handler would end the whole proxy. An answer whose head cannot be written is refused (502).

import { type IncomingMessage, type OutgoingHttpHeaders, validateHeaderName, validateHeaderValue } from 'node:http';
import { passedOn } from './headers.js';

export type UpstreamHead =
  | { readonly ok: true; readonly status: number; readonly reason: string; readonly headers: OutgoingHttpHeaders }
  | { readonly ok: false; readonly problem: string };

// The bytes Node's writer accepts in a reason phrase or a header value.
const INVALID_TEXT = /[^\t\x20-\x7e\x80-\xff]/;

/** The head to pass on to the client (hop-by-hop headers left out), or what is wrong with it. */
export function upstreamHead(answer: IncomingMessage): UpstreamHead {
  const status = answer.statusCode;
  if (status === undefined || !Number.isInteger(status) || status < 100 || status > 999)
    return { ok: false, problem: `a status code of ${String(status)}, which is no HTTP status` };
  const reason = answer.statusMessage ?? '';
  const bad = INVALID_TEXT.exec(reason);
  if (bad !== null) return { ok: false, problem: `a reason phrase holding the byte 0x${byteOf(bad[0])}` };
  const headers = passedOn(answer.rawHeaders);
  for (const [name, value] of Object.entries(headers)) {
    try {
      validateHeaderName(name);
      for (const one of Array.isArray(value) ? value : [value]) validateHeaderValue(name, String(one));
    } catch {
      return { ok: false, problem: `a header ${JSON.stringify(name.slice(0, 40))} that cannot be passed on` };
    }
  }
  return { ok: true, status, reason, headers };
}

function byteOf(character: string): string {
  return character.charCodeAt(0).toString(16).padStart(2, '0');
}
