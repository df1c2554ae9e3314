// Who may address the proxy: loopback names always; with allowRemote, the address it listens on
// (every interface's, for a wildcard) and the machine's host name, the names a remote client
// uses; the --allow-host names. Anything else, in Host or in a browser's Origin, is refused.

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
    expect(codeOf({ host: '127.0.0.1:8787', origin: 'http://localhost:5173' }, names)).toBeUndefined();
    expect(codeOf({ host: '127.0.0.1:8787', origin: 'http://evil.example' }, names)).toBe('PROXY_ORIGIN_REFUSED');
    expect(codeOf({ host: '127.0.0.1:8787', origin: 'null' }, names)).toBe('PROXY_ORIGIN_REFUSED');
  });

  it('with allowRemote, lets through the names a remote client addresses it by, and still refuses others', () => {
    const specific = remoteNames('10.1.2.3', true, []);
    expect(codeOf({ host: '10.1.2.3:8787' }, specific)).toBeUndefined();
    expect(codeOf({ host: `${hostname()}:8787` }, specific)).toBeUndefined();
    expect(codeOf({ host: '10.1.2.3:8787', origin: 'http://10.1.2.3:3000' }, specific)).toBeUndefined();
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
