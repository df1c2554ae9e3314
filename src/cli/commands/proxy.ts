// `shadowlog proxy`: a recording proxy for OpenAI- and Anthropic-style clients (docs/proxy.md).
// It runs until stopped (Ctrl-C, SIGTERM, or the io's signal), then lets the calls in flight go
// on for --stop-grace, cuts the rest (each recorded as interrupted), ends the open turns and says
// what it recorded. A second Ctrl-C cuts at once; a third ends the process as Ctrl-C does.

import { once } from 'node:events';
import type { Command } from 'commander';
import {
  DEFAULT_LINK_IDLE_MS,
  DEFAULT_MAX_ANSWER_BYTES,
  DEFAULT_MAX_HELD_BYTES,
  DEFAULT_MAX_REQUEST_BYTES,
  DEFAULT_STOP_GRACE_MS,
  type ProxyServer,
  redactedUrl,
  startProxy,
} from '../../proxy/index.js';
import { integerArgument, type RunCommand } from '../command-kit.js';
import type { CommandContext } from '../context.js';
import { addLiveOtelOption, startLiveOtel } from '../live-otel.js';
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
  readonly redactQuery: readonly string[];
  readonly upstreamTimeout: number;
  readonly maxRequestBytes: number;
  readonly maxHeldBytes?: number;
  readonly maxAnswerBytes: number;
  readonly queue: number;
  readonly stopGrace: number;
  /** Milliseconds (parsed from 30m, 90s, 2h, 0). */
  readonly linkIdle: number;
  /** Also send the sessions as OpenTelemetry spans as they are recorded (else OTEL_EXPORTER_OTLP_ENDPOINT, when set). */
  readonly otlpEndpoint?: string;
}

export async function proxyCommand(context: CommandContext, options: ProxyCommandOptions): Promise<number> {
  if (options.upstreamOpenai === undefined && options.upstreamAnthropic === undefined) {
    throw new UsageError('proxy needs an upstream: --upstream-openai URL, --upstream-anthropic URL, or both');
  }
  const live = startLiveOtel(context, await context.store(), options);
  const { store } = live;
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
    redactQuery: options.redactQuery,
    upstreamTimeoutMs: options.upstreamTimeout,
    maxRequestBytes: options.maxRequestBytes,
    ...(options.maxHeldBytes === undefined ? {} : { maxHeldBytes: options.maxHeldBytes }),
    maxAnswerBytes: options.maxAnswerBytes,
    queueCapacity: options.queue,
    stopGraceMs: options.stopGrace,
    linkIdleMs: options.linkIdle,
    onWarning: warn,
    onRecordError: (error, sessionId) =>
      warn(
        `a call${sessionId === '' ? '' : ` of session ${sessionId}`} could not be recorded: ${error instanceof Error ? error.message : String(error)}`,
      ),
  });
  announce(context, proxy, options, store.location);
  const stops = stopRequests(context.io.signal);
  try {
    await stops.first;
    const closing = proxy.close();
    // A second stop cuts the calls in flight at once (each is still recorded, as interrupted).
    void stops.second.then(() => {
      warn('stopping now: the calls in flight are cut and recorded as interrupted (Ctrl-C again ends the process unrecorded)');
      void proxy.close();
    });
    await closing;
  } finally {
    stops.dispose();
    await live.close();
  }
  const summary = { sessions: proxy.sessionIds(), ...proxy.stats };
  if (context.json) context.printJson(summary);
  else context.print(summaryLine(summary));
  // Exit 1 says calls went unrecorded; a refused request, an abandoned upload or a call cut at stop (recorded) is not.
  return proxy.stats.recordErrors === 0 ? 0 : 1;
}

function summaryLine(summary: ProxyServer['stats'] & { sessions: string[] }): string {
  const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
  const { sessions } = summary;
  const parts = [
    `stopped: ${count(summary.forwarded, 'call', 'calls')} forwarded and ${summary.recorded} recorded in ${count(sessions.length, 'session', 'sessions')}${sessions.length === 0 ? '' : ` (${sessions.join(', ')})`}`,
    `${summary.passedThrough} other requests passed through unrecorded`,
  ];
  if (summary.interrupted > 0)
    parts.push(`${count(summary.interrupted, 'call', 'calls')} cut when the proxy stopped (recorded as PROXY_INTERRUPTED)`);
  if (summary.refused > 0) parts.push(`${count(summary.refused, 'request', 'requests')} refused, nothing forwarded`);
  if (summary.clientAborts > 0)
    parts.push(
      `${count(summary.clientAborts, 'upload', 'uploads')} abandoned by ${summary.clientAborts === 1 ? 'its client' : 'their clients'}`,
    );
  if (summary.recordErrors > 0) parts.push(`${summary.recordErrors} could not be recorded`);
  return parts.join('; ');
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

/**
 * The stop requests: the first (Ctrl-C, SIGTERM, or the io's signal) and the second. After the
 * second the proxy's handlers are gone, so a third Ctrl-C ends the process as it always does.
 */
function stopRequests(signal: AbortSignal | undefined): { first: Promise<void>; second: Promise<void>; dispose(): void } {
  const first = new AbortController();
  const second = new AbortController();
  const stop = () => {
    if (!first.signal.aborted) first.abort();
    else {
      second.abort();
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    }
  };
  signal?.addEventListener('abort', stop);
  if (signal?.aborted === true) stop();
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  const aborted = (controller: AbortController) =>
    controller.signal.aborted ? Promise.resolve() : once(controller.signal, 'abort').then(() => {});
  return {
    first: aborted(first),
    second: aborted(second),
    dispose() {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      signal?.removeEventListener('abort', stop);
    },
  };
}

/** Registers `shadowlog proxy` on the program. */
export function registerProxyCommand(program: Command, run: RunCommand): void {
  const command = program
    .command('proxy')
    .description(
      "a recording proxy for OpenAI- and Anthropic-style clients: forwards each call unchanged and records it, and every rewrite of the client's history, in a session",
    )
    .option('--port <port>', 'the port to listen on (0: any free one)', (value) => integerArgument(value, 'a port'), 8787)
    .option('--host <host>', 'the address to listen on; anything but loopback needs --allow-remote', '127.0.0.1')
    .option('--allow-remote', 'listen on a --host that is not loopback: anyone who can reach it can send calls through the proxy')
    .option(
      '--allow-host <name>',
      'a further name (without a port) clients may address the proxy by in Host (repeatable; loopback names always may)',
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option('--upstream-openai <url>', 'where OpenAI chat completions and Responses calls go, e.g. https://api.openai.com')
    .option('--upstream-anthropic <url>', 'where Anthropic Messages calls go, e.g. https://api.anthropic.com')
    .option(
      '--redact-header <name>',
      'a further request header to keep out of the log (repeatable); every header whose name holds auth, key, token, secret, signature, passw, credential or cookie always is (authorization, x-api-key, api-key, x-goog-api-key, …)',
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option(
      '--redact-query <name>',
      'a further query parameter whose value is kept out of the log (repeatable); code, sig and every name holding one of those words always are (api-key, key, token, subscription-key, …)',
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
      '--max-held-bytes <bytes>',
      `the most bytes of recorded calls' request bodies held at once, across calls; a call that would pass it waits, unread (at least --max-request-bytes; default ${DEFAULT_MAX_HELD_BYTES}, or --max-request-bytes if larger)`,
      (value) => integerArgument(value, 'bytes', 1),
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
    .option(
      '--stop-grace <ms>',
      'on Ctrl-C, how long the calls in flight may go on before they are cut (each recorded as interrupted); a second Ctrl-C cuts at once',
      (value) => integerArgument(value, 'milliseconds', 0),
      DEFAULT_STOP_GRACE_MS,
    )
    .option(
      '--link-idle <duration>',
      "how long after a session's last call a client's compaction sent with no conversation id is linked to it as its likely continuation (30m, 90s, 2h; 0 links nothing)",
      durationArgument,
      DEFAULT_LINK_IDLE_MS,
    );
  addLiveOtelOption(command).action((options: ProxyCommandOptions) => run('write', (context) => proxyCommand(context, options))());
}

const DURATION_UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** A duration flag: a whole number and a unit (ms, s, m, h), or 0; in milliseconds. */
function durationArgument(value: string): number {
  if (value.trim() === '0') return 0;
  const match = /^(\d+)(ms|s|m|h)$/.exec(value.trim());
  const amount = match === null ? Number.NaN : Number(match[1]) * (DURATION_UNITS[match[2] as string] as number);
  if (!Number.isSafeInteger(amount))
    throw new UsageError(`--link-idle takes a duration such as 30m, 90s or 2h (or 0 to link nothing), found ${JSON.stringify(value)}`);
  return amount;
}
