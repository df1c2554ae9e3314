// Who may address the proxy: loopback names always; with allowRemote, the address it listens on
// (every interface's, for a wildcard) and the machine's host name, the names a remote client
// uses; the --allow-host names. Anything else in Host is refused, and so is a malformed Host;
// any Origin is refused, whatever it names (the proxy serves programs, which send none).

import { hostname, networkInterfaces } from 'node:os';
import { describe, expect, it } from 'vitest';
import { addressingRefusal, isLoopbackHost, remoteNames } from '../../src/proxy/client-checks.js';

const codeOf = (headers: Record<string, string>, names: ReadonlySet<string>) => addressingRefusal(headers, names)?.code;

describe('client checks', () => {
  it('knows the loopback names', () => {
    for (const name of ['localhost', 'LOCALHOST', '127.0.0.1', '127.1.2.3', '::1', '[::1]', '::ffff:127.0.0.1'])
      expect(isLoopbackHost(name), name).toBe(true);
    for (const name of ['0.0.0.0', '192.0.2.1', 'localhost.evil.example', '127.0.0.1.nip.io', '::', ''])
      expect(isLoopbackHost(name), name).toBe(false);
  });

  it('on loopback, answers loopback names (and --allow-host ones) only', () => {
    const names = remoteNames('127.0.0.1', false, ['Proxy.Local']);
    expect(codeOf({ host: '127.0.0.1:8787' }, names)).toBeUndefined();
    expect(codeOf({ host: '[::1]:8787' }, names)).toBeUndefined();
    expect(codeOf({ host: 'proxy.local:8787' }, names)).toBeUndefined();
    expect(codeOf({}, names)).toBeUndefined();
    expect(codeOf({ host: hostname() }, names)).toBe('PROXY_HOST_REFUSED');
    expect(codeOf({ host: 'evil.example:8787' }, names)).toBe('PROXY_HOST_REFUSED');
    expect(codeOf({ host: '127.0.0.1:8787', origin: 'http://evil.example' }, names)).toBe('PROXY_ORIGIN_REFUSED');
    expect(codeOf({ host: '127.0.0.1:8787', origin: 'null' }, names)).toBe('PROXY_ORIGIN_REFUSED');
  });

  it('refuses a page on another loopback port too: any Origin is a web page, and the proxy serves programs', () => {
    const names = remoteNames('127.0.0.1', false, []);
    for (const origin of ['http://localhost:5173', 'http://127.0.0.1:8787', 'http://[::1]:3000'])
      expect(codeOf({ host: '127.0.0.1:8787', origin }, names), origin).toBe('PROXY_ORIGIN_REFUSED');
  });

  it('refuses a malformed Host: a name and a port of digits, or a bracketed IPv6 address and one', () => {
    const names = remoteNames('127.0.0.1', false, []);
    for (const host of ['127.0.0.1:18500@evil.example', '127.0.0.1:abc', '127.0.0.1:', 'localhost:8787:1', '[::1', '[evil]:80', 'a b', ''])
      expect(codeOf({ host }, names), host).toBe('PROXY_HOST_REFUSED');
    for (const host of ['127.0.0.1', '127.0.0.1:18500', 'LOCALHOST:1', '[::1]', '[::1]:8787'])
      expect(codeOf({ host }, names), host).toBeUndefined();
  });

  it('refuses an --allow-host name with a port (Host is compared by its name, so it could never match)', () => {
    for (const name of ['proxy.local:8787', '[fd00::1]:80', 'a@b', 'http://proxy.local'])
      expect(() => remoteNames('127.0.0.1', false, [name]), name).toThrow(/--allow-host takes a host name or address without a port/);
    expect(remoteNames('127.0.0.1', false, ['Proxy.Local', '[fd00::1]', 'fd00::2', '10.1.2.3'])).toEqual(
      new Set(['proxy.local', 'fd00::1', 'fd00::2', '10.1.2.3']),
    );
  });

  it('with allowRemote, lets through the names a remote client addresses it by, and still refuses others', () => {
    const specific = remoteNames('10.1.2.3', true, []);
    expect(codeOf({ host: '10.1.2.3:8787' }, specific)).toBeUndefined();
    expect(codeOf({ host: `${hostname()}:8787` }, specific)).toBeUndefined();
    expect(codeOf({ host: '10.1.2.3:8787', origin: 'http://10.1.2.3:3000' }, specific)).toBe('PROXY_ORIGIN_REFUSED');
    expect(codeOf({ host: 'evil.example:8787' }, specific)).toBe('PROXY_HOST_REFUSED');
    expect(codeOf({ host: '10.1.2.3:8787', origin: 'http://evil.example' }, specific)).toBe('PROXY_ORIGIN_REFUSED');
    const wildcard = remoteNames('0.0.0.0', true, []);
    for (const address of Object.values(networkInterfaces()).flatMap((list) => list ?? [])) {
      const host = address.family === 'IPv6' ? `[${address.address}]:8787` : `${address.address}:8787`;
      expect(codeOf({ host }, wildcard), host).toBeUndefined();
    }
    expect(codeOf({ host: 'evil.example' }, wildcard)).toBe('PROXY_HOST_REFUSED');
  });
});
