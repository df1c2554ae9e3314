// `shadowlog replay <id> --turn N [--step K] [--wire]`: exactly what the model received on
// that call, rebuilt from the log and checked against the digest recorded when it was sent.

import type { Command } from 'commander';
import { replaySummary, type SummaryReplayResult } from '../../compaction/index.js';
import { assertSessionId, blockPlaceholder, type ContentBlock, canonicalJson } from '../../log/index.js';
import type { ModelMessage } from '../../providers/index.js';
import { type ReplayResult, replay } from '../../spine/index.js';
import { resolveSessionId } from '../../store/index.js';
import { type BodyMessages, readBodyMessages } from '../body-messages.js';
import { integerArgument, type RunCommand } from '../command-kit.js';
import type { CommandContext } from '../context.js';
import { plural } from '../plural.js';
import { createCliRegistry } from '../registry.js';
import { describePolicy } from '../render-text.js';
import { rendererFor } from '../renderers.js';
import { clipText } from '../terminal-text.js';
import { UsageError } from '../usage-error.js';

export interface ReplayOptions {
  readonly turn?: number;
  readonly compaction?: string;
  readonly step?: number;
  readonly wire?: boolean;
  readonly full?: boolean;
}

export async function replayCommand(context: CommandContext, given: string, options: ReplayOptions): Promise<number> {
  // A name that cannot be an id is bad usage, refused before any store is opened.
  assertSessionId(given);
  const sessionId = await resolveSessionId(await context.store(), given);
  if (options.wire === true && context.json) {
    throw new UsageError('--wire prints the raw request bytes and --json one JSON document about the call; give one of them');
  }
  const store = await context.store();
  const result =
    options.compaction !== undefined
      ? await replaySummary(store, sessionId, options.compaction, rendererFor, { registry: createCliRegistry() })
      : await replay(
          store,
          sessionId,
          { turn: options.turn ?? 1, ...(options.step === undefined ? {} : { step: options.step }) },
          { resolveRenderer: rendererFor, registry: createCliRegistry() },
        );
  if (context.json) {
    const { messages: _messages, ...rest } = result;
    if ('wireBody' in rest) {
      const { wireBody: _wireBody, ...withoutBytes } = rest;
      context.printJson(offSurfaceJson(withoutBytes, result));
    } else {
      context.printJson(rest);
    }
  } else if (options.wire === true) {
    writeWire(context, result);
  } else {
    context.print(describeReplay(result, options.full === true ? 0 : 300));
  }
  return 0;
}

/**
 * --wire: the bytes whose sha256 is the recorded digest, and nothing else (no newline after them,
 * on a terminal too), so that `| sha256sum` prints the digest: a proxied call's stored body,
 * decoded from base64 when it was not UTF-8; for a call shadowlog sent (a summarizer's too) the
 * canonical JSON of the rendered request, which is what the provider adapter put on the wire and
 * what the digest was computed over (SPEC §4). Raw bytes by design: nothing is escaped, since
 * this is for piping. An imported call has no bytes.
 */
function writeWire(context: CommandContext, result: ReplayResult | SummaryReplayResult): void {
  if ('recordedInProcess' in result && result.recordedInProcess?.bytes === 'not-captured') {
    throw new UsageError(
      `--wire prints the bytes a call sent, and turn ${result.turn} step ${result.step} was recorded by ${result.recordedInProcess.by} with its bytes not captured (${result.recordedInProcess.reason ?? 'no reason recorded'}). Leave out --wire to see the surface it was recorded with`,
    );
  }
  if ('provenance' in result && result.provenance === 'imported') {
    throw new UsageError(
      `--wire prints the bytes a call sent, and turn ${result.turn} step ${result.step} was imported from another harness's files: no bytes of it went through shadowlog. Leave out --wire to see the reconstructed request`,
    );
  }
  if ('wireBody' in result && result.wireBody !== undefined) {
    context.io.stdout.write(result.wireBody);
    return;
  }
  context.write(canonicalJson(result.request ?? {}));
}

export function describeReplay(result: ReplayResult | SummaryReplayResult, maxChars: number): string {
  const call =
    'turn' in result
      ? `turn ${result.turn}, step ${result.step}`
      : `${result.summarizer === 'native' ? "the provider's compaction call" : 'the summarizer call'} of compaction ${result.compactionId}`;
  const provenance = 'provenance' in result ? result.provenance : undefined;
  const renderer = result.rendererVersion === null ? '' : `, renderer ${result.rendererVersion}`;
  const chain = `the hash chain from seq 0 to #${result.seq} is intact`;
  const lines = [`${call} (event #${result.seq}): ${result.provider}/${result.model}${renderer}`];
  const inProcess = 'recordedInProcess' in result ? result.recordedInProcess : undefined;
  if (provenance === 'imported' && inProcess !== undefined) {
    lines.push(
      `not byte-verified: ${inProcess.by} recorded this call in the app's process without capturing the bytes it sent (${inProcess.reason ?? 'no reason recorded'}), so no digest exists; the surface below is the one recorded for the call, and ${chain}`,
    );
  } else if (provenance === 'imported') {
    lines.push(
      `reconstructed from an import, not byte-verified: another harness made this call, and shadowlog read it from that harness's files, so no digest of what was sent exists; the surface below is the one recorded for the call, and ${chain}`,
    );
  } else if (provenance === 'proxied') {
    lines.push(
      `verified: the request body ${inProcess === undefined ? 'the proxy received' : `the provider sent (captured in process by ${inProcess.by})`} (${'wireBody' in result ? (result.wireBody?.length ?? 0) : 0} bytes, stored in the log) hashes to ${result.requestDigest}, the digest recorded when it was received; ${chain}`,
    );
    if ('offSurface' in result && result.offSurface !== undefined) return describeOffSurface(result, lines, maxChars);
  } else {
    lines.push(`verified: the rebuilt request hashes to ${result.requestDigest}, the digest recorded when it was sent; ${chain}`);
  }
  lines.push(`the model ${provenance === 'imported' ? 'was shown' : 'received'} ${plural(result.messages.length, 'message')}:`);
  if ('policy' in result) {
    lines.splice(
      1,
      0,
      result.policy === null
        ? 'the log recorded no compaction policy for this compaction (written before policies were recorded)'
        : `it ran under the policy recorded at #${result.policy.seq}: ${describePolicy(result.policy as unknown as Record<string, unknown>)}`,
    );
  }
  for (const message of result.messages) lines.push(`  ${describeMessage(message, maxChars)}`);
  if (provenance === 'imported') {
    lines.push(
      inProcess === undefined
        ? 'tool definitions and parameters are not in the import; --wire has no bytes to print'
        : 'tool definitions and parameters were in the bytes, which were not captured; --wire has no bytes to print',
    );
  } else {
    const tools = (result.request?.tools as Array<unknown> | undefined)?.length ?? 0;
    lines.push(`and ${tools} tool definition${tools === 1 ? '' : 's'}; --wire prints the exact request body`);
  }
  return lines.join('\n');
}

/**
 * A proxied call off the surface: the digest proved the bytes, and the session's surface is not
 * what they held, so the messages listed are the body's own, read from the bytes, or none.
 */
function describeOffSurface(result: ReplayResult, lines: string[], maxChars: number): string {
  const offSurface = result.offSurface as NonNullable<ReplayResult['offSurface']>;
  lines.push(
    `NOT ON THE SESSION'S SURFACE: ${offSurface.reason}. The digest proves these bytes only; the session's surface at this point is not what the call sent`,
  );
  const body = readBodyMessages(offSurface.protocol, result.wireBody ?? new Uint8Array());
  if ('unreadable' in body) {
    const why = offSurface.reason.includes(body.unreadable) ? '' : ` (${body.unreadable})`;
    lines.push(`what the model received is known only from these bytes; shadowlog cannot list their messages${why}. --wire prints them`);
    return lines.join('\n');
  }
  const count = body.messages.length;
  lines.push(`its body holds ${count} message${count === 1 ? '' : 's'} (read from the stored bytes as an ${offSurface.protocol} request):`);
  for (const message of body.messages) lines.push(`  ${describeMessage(message, maxChars)}`);
  if (body.notes.length > 0)
    lines.push(`${body.notes.length} part${body.notes.length === 1 ? '' : 's'} of the body not listed: ${body.notes.join('; ')}`);
  const tools = (result.request?.tools as Array<unknown> | undefined)?.length ?? 0;
  lines.push(`and ${tools} tool definition${tools === 1 ? '' : 's'}; --wire prints the exact request body`);
  return lines.join('\n');
}

/** --json of a proxied call: an off-surface call adds the messages its body held (or why they cannot be read). */
function offSurfaceJson(output: object, result: ReplayResult | SummaryReplayResult): object {
  if (!('offSurface' in result) || result.offSurface === undefined) return output;
  const body: BodyMessages = readBodyMessages(result.offSurface.protocol, result.wireBody ?? new Uint8Array());
  return {
    ...output,
    offSurface: {
      ...result.offSurface,
      ...('unreadable' in body
        ? { bodyMessages: null, bodyUnreadable: body.unreadable }
        : { bodyMessages: body.messages, bodyNotes: body.notes }),
    },
  };
}

function describeMessage(message: ModelMessage, maxChars: number): string {
  const text = shorten(message.content, maxChars);
  switch (message.role) {
    case 'assistant': {
      const calls = message.toolCalls.map((call) => `${call.name}(${JSON.stringify(call.arguments)})`).join(', ');
      return `assistant: ${text}${calls === '' ? '' : `${text === '' ? '' : ' '}→ ${calls}`}`;
    }
    case 'tool':
      return `tool result ${message.callId}${message.isError ? ' (error)' : ''}: ${text}`;
    default:
      return `${message.role}: ${text}`;
  }
}

function shorten(content: readonly ContentBlock[], maxChars: number): string {
  const text = content
    .map((block) => blockPlaceholder(block))
    .join(' ')
    .replaceAll('\n', ' ⏎ ');
  return maxChars > 0 && text.length > maxChars ? `${clipText(text, maxChars)}… (${text.length - maxChars} more characters)` : text;
}

/** Registers `shadowlog replay` on the program. */
export function registerReplayCommand(program: Command, run: RunCommand): void {
  program
    .command('replay <id>')
    .description('exactly what the model received on one call, rebuilt from the log and checked against its recorded digest')
    .option('--turn <n>', 'the turn (from 1)', (value) => integerArgument(value, 'a turn number', 1))
    .option('--step <k>', 'the step within the turn (default 1)', (value) => integerArgument(value, 'a step number', 1))
    .option('--compaction <id>', "a compaction's summarizer call instead (the id, or its first characters)")
    .option('--wire', 'print the exact request body that was sent, raw bytes with nothing added: `| sha256sum` prints its digest')
    .option('--full', 'do not shorten long messages')
    .action((id: string, options: { turn?: number; step?: number; compaction?: string; wire?: boolean; full?: boolean }) =>
      run('read', (context) => {
        if ((options.turn === undefined) === (options.compaction === undefined))
          throw new UsageError('replay takes --turn N [--step K], or --compaction ID');
        return replayCommand(context, id, {
          ...(options.turn === undefined ? {} : { turn: options.turn }),
          ...(options.step === undefined ? {} : { step: options.step }),
          ...(options.compaction === undefined ? {} : { compaction: options.compaction }),
          wire: options.wire === true,
          full: options.full === true,
        });
      })(),
    );
}
