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

  // docs/proxy.md: a password in an upstream URL "is never printed (the banner and every error show
  // alice:[redacted]@)". A password holding "/" (base64 has it) makes the URL unparseable, or parse
  // as another host with the password in its path: everything up to the last @ is taken out.
  it('never prints the password of an upstream URL, whatever it holds', () => {
    for (const url of [
      'http://alice:Zm9v/YmFy+SECRET@127.0.0.1:1',
      'http://alice:a/b/SECRET@127.0.0.1:1/gw',
      'http://alice:123/SECRET@127.0.0.1:1',
      'http://alice:a@b@SECRET@127.0.0.1:1',
      'alice:SECRET/x@127.0.0.1:1',
    ]) {
      expect(redactedUrl(url), url).not.toContain('SECRET');
    }
    expect(redactedUrl('http://alice:Zm9v/YmFy+SECRET@127.0.0.1:18501')).toBe('http://[redacted]@127.0.0.1:18501');
    expect(redactedUrl('http://alice:123/SECRET@127.0.0.1:1/gw?key=K')).toBe('http://[redacted]@127.0.0.1:1/gw?key=[redacted]');
  });

  it("redacts gateways' credential parameters: by a word in the name, code and sig, array and ;-separated forms, path parameters", () => {
    expect(
      redactedTarget('/v1/x?subscription-key=S&code=S&sig=S&x-api-key=S&access-token=S&api-key[]=S&x=1;api-key=S&limit=5&order=asc'),
    ).toBe(
      '/v1/x?subscription-key=[redacted]&code=[redacted]&sig=[redacted]&x-api-key=[redacted]&access-token=[redacted]&api-key[]=[redacted]&x=1;api-key=[redacted]&limit=5&order=asc',
    );
    expect(redactedTarget('/v1/chat/completions;api-key=S;v=1?tenant=S', ['Tenant'])).toBe(
      '/v1/chat/completions;api-key=[redacted];v=1?tenant=[redacted]',
    );
  });
});
