// Credentials in URLs the proxy prints or stores: the key-carrying query parameters and an
// upstream URL's password are replaced by [redacted]; everything else stays byte for byte.

import { describe, expect, it } from 'vitest';
import { redactedTarget, redactedUrl } from '../../src/proxy/url-redaction.js';

describe('URL redaction', () => {
  it('redacts the values of credential query parameters, whatever their case or encoding, and keeps the rest as sent', () => {
    expect(redactedTarget('/v1/chat/completions?api-version=2024-10-21&api-key=S&KEY=S&api%5Fkey=S&token&access_token=S#f')).toBe(
      '/v1/chat/completions?api-version=2024-10-21&api-key=[redacted]&KEY=[redacted]&api%5Fkey=[redacted]&token=[redacted]&access_token=[redacted]#f',
    );
    expect(redactedTarget('/v1/messages')).toBe('/v1/messages');
    expect(redactedTarget('/v1/models?limit=5&after=%ZZ')).toBe('/v1/models?limit=5&after=%ZZ');
    expect(redactedTarget('http://user:pw@127.0.0.1:9/v1/x?key=S')).toBe('http://[redacted]@127.0.0.1:9/v1/x?key=[redacted]');
  });

  it('shows an upstream URL as given, but for its password', () => {
    expect(redactedUrl('https://api.openai.com')).toBe('https://api.openai.com');
    expect(redactedUrl('http://alice:s3cr%40t@gateway.internal:8080/openai')).toBe('http://alice:[redacted]@gateway.internal:8080/openai');
    expect(redactedUrl('http://alice:pw@host/?key=K')).toBe('http://alice:[redacted]@host/?key=[redacted]');
    expect(redactedUrl('alice:pw@gateway.internal')).toBe('[redacted]@gateway.internal');
    expect(redactedUrl('http://alice:pw@bad host/')).toBe('http://[redacted]@bad host/');
  });
});
