// What a large request costs the proxy (docs/proxy.md, "Memory"): runs the built CLI
// (`node bin/shadowlog.js proxy`, so `npm run build` first) under /usr/bin/time -v against a fake
// upstream on 127.0.0.1, sends CALLS requests of SIZE MiB at once (a chat completion with one
// large user message), and asks GET /v1/models every 50 ms meanwhile. Prints the proxy's peak
// RSS, the longest GET, and how long the calls took. Not a test: run it by hand,
//
//   npx tsx test/proxy/memory-probe.ts --size 60 --calls 1 [-- extra proxy flags]
//
// Every figure in docs/proxy.md's Memory section comes from a line this prints.

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const argv = process.argv.slice(2);
const split = argv.indexOf('--');
const own = split < 0 ? argv : argv.slice(0, split);
const extra = split < 0 ? [] : argv.slice(split + 1);
const option = (name: string, fallback: number) => {
  const at = own.indexOf(`--${name}`);
  return at < 0 ? fallback : Number(own[at + 1]);
};
const sizeMiB = option('size', 60);
const calls = option('calls', 1);

const answer = JSON.stringify({
  id: 'chatcmpl-probe',
  object: 'chat.completion',
  created: 1,
  model: 'gpt-4o',
  choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
});
const upstream = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    const body = request.url?.startsWith('/v1/models') ? '{"data":[]}' : answer;
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    response.end(body);
  });
});
await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
const upstreamPort = (upstream.address() as { port: number }).port;

const directory = mkdtempSync(join(tmpdir(), 'shadowlog-memory-probe-'));
const child = spawn(
  '/usr/bin/time',
  [
    '-v',
    process.execPath,
    'bin/shadowlog.js',
    '--store',
    `sqlite:${join(directory, 'log.db')}`,
    'proxy',
    '--port',
    '0',
    '--upstream-openai',
    `http://127.0.0.1:${upstreamPort}`,
    ...extra,
  ],
  // A process group of its own: /usr/bin/time ignores SIGINT, so Ctrl-C is sent to the group, as a terminal does.
  { stdio: ['ignore', 'pipe', 'pipe'], detached: true },
);
let stdout = '';
let stderr = '';
child.stdout.on('data', (chunk: Buffer) => {
  stdout += chunk.toString('utf8');
});
child.stderr.on('data', (chunk: Buffer) => {
  stderr += chunk.toString('utf8');
});
const exited = new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? -1)));
const port = await new Promise<number>((resolve, reject) => {
  const timer = setInterval(() => {
    const found = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(stdout);
    if (found !== null) {
      clearInterval(timer);
      resolve(Number(found[1]));
    }
  }, 20);
  void exited.then((code) => reject(new Error(`the proxy exited ${code}: ${stderr}`)));
});

function send(method: string, path: string, body?: Buffer): Promise<number> {
  return new Promise((resolve) => {
    const outgoing = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        headers: body === undefined ? {} : { 'content-type': 'application/json', 'content-length': body.length },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    // A connection the proxy cut (or a proxy that died) shows as status 0.
    outgoing.on('error', () => resolve(0));
    outgoing.end(body);
  });
}

const content = 'x'.repeat(sizeMiB * 1024 * 1024);
const started = performance.now();
let longestGet = 0;
let polling = true;
const poller = (async () => {
  while (polling) {
    const at = performance.now();
    await send('GET', '/v1/models');
    longestGet = Math.max(longestGet, performance.now() - at);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
})();
const statuses = await Promise.all(
  Array.from({ length: calls }, (_, index) =>
    send(
      'POST',
      '/v1/chat/completions',
      Buffer.from(JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: `${index} ${content}` }] })),
    ),
  ),
);
const callsMs = performance.now() - started;
// Let the writes finish (the GETs go on meanwhile), then stop the proxy as Ctrl-C does.
await new Promise((resolve) => setTimeout(resolve, 1500));
polling = false;
await poller;
process.kill(-(child.pid as number), 'SIGINT');
const code = await exited;
upstream.close();
rmSync(directory, { recursive: true, force: true });
const peakKiB = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(stderr)?.[1] ?? Number.NaN);
const summary = stdout.split('\n').find((line) => line.startsWith('stopped:')) ?? '(no summary)';
console.log(
  `${calls} call(s) of ${sizeMiB} MiB: statuses ${statuses.join(',')}, answered in ${Math.round(callsMs)} ms; ` +
    `longest GET /v1/models meanwhile ${Math.round(longestGet)} ms; proxy peak RSS ${Math.round(peakKiB / 1024)} MiB; exit ${code}`,
);
console.log(`proxy: ${summary}`);
for (const line of stderr.split('\n').filter((line) => line.startsWith('shadowlog:'))) console.log(`proxy stderr: ${line}`);
