// The public parts of the recording proxy (shadowlog/proxy): start one in front of an
// upstream, and the matching rule it records sessions by.

export { CREDENTIAL_HEADERS, CREDENTIAL_NAME_WORDS, REDACTED, SESSION_HEADER } from './headers.js';
export { PROTOCOLS, type ProxyProtocol, type UpstreamName } from './protocols.js';
export type { ProxyMessage, ProxyRequest, ProxyToolCall } from './proxy-message.js';
export { messageKey } from './proxy-message.js';
export {
  DEFAULT_MAX_ANSWER_BYTES,
  DEFAULT_MAX_HELD_BYTES,
  DEFAULT_MAX_REQUEST_BYTES,
  DEFAULT_PROXY_PORT,
  DEFAULT_STOP_GRACE_MS,
  isLoopbackHost,
  ProxyListenError,
  type ProxyOptions,
  type ProxyServer,
  type ProxyStats,
  startProxy,
} from './proxy-server.js';
export { UnreadableRequestError } from './request-notes.js';
export { continuedSession, type LinkCandidate, type LinkRequest } from './session-link.js';
export { DEFAULT_LINK_IDLE_MS, newProxySessionId } from './session-router.js';
export { keptLength, matchSurface, type SurfaceMatch } from './surface-match.js';
export { CREDENTIAL_QUERY_PARAMETERS, redactedUrl } from './url-redaction.js';
