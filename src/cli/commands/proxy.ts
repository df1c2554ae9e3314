// `shadowlog proxy`: a recording proxy for OpenAI- and Anthropic-style clients (docs/proxy.md).
// It runs until stopped (Ctrl-C, SIGTERM, or the io's signal), then waits for the calls in flight
// to be written, ends the open turns and says what it recorded.

import { once } from 'node:events';
import type { Command } from 'commander';
import { DEFAULT_MAX_ANSWER_BYTES, DEFAULT_MAX_REQUEST_BYTES, type ProxyServer, redactedUrl, startProxy } from '../../proxy/index.js';
import { integerArgument, type RunCommand } from '../command-kit.js';
import type { CommandContext } from '../context.js';
import { escapeTerminalText } from '../terminal-text.js';
import { UsageError } from '../usage-error.js';

export interface ProxyCommandOptions {
  readonly port: number;
  readonly host: string;
  readonly allowRemote?: boolean;
  readonly allowHost: readonly string[];
  readonly upstreamOpenai?: string;
  readonly upstreamAnthropic?: string;
  readonly redactHeader: readonly string[];
  readonly upstreamTimeout: number;
  readonly maxRequestBytes: number;
  readonly maxAnswerBytes: number;
  readonly queue: number;
}

export async function proxyCommand(context: CommandContext, options: ProxyCommandOptions): Promise<number> {
  if (options.upstreamOpenai === undefined && options.upstreamAnthropic === undefined) {
    throw new UsageError('proxy needs an upstream: --upstream-openai URL, --upstream-anthropic URL, or both');
  }
  const store = await context.store();
  // A warning may quote what a client sent (a Host, a target): shown escaped, never acted on by the terminal.
  const warn = (message: string) => context.io.stderr.write(`shadowlog: ${escapeTerminalText(message)}\n`);
  const proxy = await startProxy({
    store,
    upstreams: {
      ...(options.upstreamOpenai === undefined ? {} : { openai: options.upstreamOpenai }),
      ...(options.upstreamAnthropic === undefined ? {} : { anthropic: options.upstreamAnthropic }),
    },
    port: options.port,
    host: options.host,
    allowRemote: options.allowRemote === true,
    allowedHosts: options.allowHost,
    redactHeaders: options.redactHeader,
    upstreamTimeoutMs: options.upstreamTimeout,
    maxRequestBytes: options.maxRequestBytes,
    maxAnswerBytes: options.maxAnswerBytes,
    queueCapacity: options.queue,
    onWarning: warn,
    onRecordError: (error, sessionId) =>
      warn(
        `a call${sessionId === '' ? '' : ` of session ${sessionId}`} could not be recorded: ${error instanceof Error ? error.message : String(error)}`,
      ),
  });
  announce(context, proxy, options, store.location);
  await stopped(context.io.signal);
  await proxy.close();
  const summary = { sessions: proxy.sessionIds(), ...proxy.stats };
  if (context.json) context.printJson(summary);
  else {
    const { stats } = proxy;
    const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
    context.print(
      `stopped: ${count(stats.forwarded, 'call', 'calls')} forwarded and ${stats.recorded} recorded in ${count(summary.sessions.length, 'session', 'sessions')}${summary.sessions.length === 0 ? '' : ` (${summary.sessions.join(', ')})`}; ${stats.passedThrough} other requests passed through unrecorded${stats.refused === 0 ? '' : `; ${count(stats.refused, 'request', 'requests')} refused, nothing forwarded`}${stats.clientAborts === 0 ? '' : `; ${count(stats.clientAborts, 'upload', 'uploads')} abandoned by ${stats.clientAborts === 1 ? 'its client' : 'their clients'}`}${stats.recordErrors === 0 ? '' : `; ${stats.recordErrors} could not be recorded`}`,
    );
  }
  // Exit 1 says calls went unrecorded; a refused request or an abandoned upload is the client's doing.
  return proxy.stats.recordErrors === 0 ? 0 : 1;
}

function announce(context: CommandContext, proxy: ProxyServer, options: ProxyCommandOptions, location: string): void {
  const lines = [`shadowlog proxy listening on ${proxy.url}, recording into ${location} (Ctrl-C stops)`];
  // The upstreams as given, but for a password in them.
  if (options.upstreamAnthropic !== undefined)
    lines.push(`  Anthropic Messages → ${redactedUrl(options.upstreamAnthropic)}: ANTHROPIC_BASE_URL=${proxy.url}`);
  if (options.upstreamOpenai !== undefined)
    lines.push(`  OpenAI chat completions and Responses → ${redactedUrl(options.upstreamOpenai)}: OPENAI_BASE_URL=${proxy.url}/v1`);
  if (context.json) context.io.stderr.write(`${lines.join('\n')}\n`);
  else context.print(lines.join('\n'));
}

async function stopped(signal: AbortSignal | undefined): Promise<void> {
  const controller = new AbortController();
  const stop = () => controller.abort();
  signal?.addEventListener('abort', stop);
  if (signal?.aborted === true) stop();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    if (!controller.signal.aborted) await once(controller.signal, 'abort');
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    signal?.removeEventListener('abort', stop);
  }
}

/** Registers `shadowlog proxy` on the program. */
export function registerProxyCommand(program: Command, run: RunCommand): void {
  program
    .command('proxy')
    .description(
      "a recording proxy for OpenAI- and Anthropic-style clients: forwards each call unchanged and records it, and every rewrite of the client's history, in a session",
    )
    .option('--port <port>', 'the port to listen on (0: any free one)', (value) => integerArgument(value, 'a port'), 8787)
    .option('--host <host>', 'the address to listen on; anything but loopback needs --allow-remote', '127.0.0.1')
    .option('--allow-remote', 'listen on a --host that is not loopback: anyone who can reach it can send calls through the proxy')
    .option(
      '--allow-host <name>',
      'a further name clients may address the proxy by, in Host and Origin (repeatable; loopback names always may)',
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option('--upstream-openai <url>', 'where OpenAI chat completions and Responses calls go, e.g. https://api.openai.com')
    .option('--upstream-anthropic <url>', 'where Anthropic Messages calls go, e.g. https://api.anthropic.com')
    .option(
      '--redact-header <name>',
      'a further request header to keep out of the log (repeatable; authorization, x-api-key, api-key and cookie always are)',
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option(
      '--upstream-timeout <ms>',
      'how long the upstream may stay silent',
      (value) => integerArgument(value, 'milliseconds', 1),
      600_000,
    )
    .option(
      '--max-request-bytes <bytes>',
      'a recorded call whose body is larger is refused (413), not forwarded',
      (value) => integerArgument(value, 'bytes', 1),
      DEFAULT_MAX_REQUEST_BYTES,
    )
    .option(
      '--max-answer-bytes <bytes>',
      'the most of an answer kept for the record, as received and as decoded; the client always gets all of it',
      (value) => integerArgument(value, 'bytes', 1),
      DEFAULT_MAX_ANSWER_BYTES,
    )
    .option(
      '--queue <calls>',
      'calls forwarded and not yet written before new ones wait',
      (value) => integerArgument(value, 'a count', 1),
      256,
    )
    .action((options: ProxyCommandOptions) => run('write', (context) => proxyCommand(context, options))());
}
