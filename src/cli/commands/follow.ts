// `shadowlog show <id> --follow`: the record as it grows, so that an operator can watch an agent
// work. Text prints each event as `show --record` renders it, when it lands (a replacement says
// there what it shadows; earlier events are not marked again). --json prints one canonical JSON
// event per line (JSONL), since a stream cannot be one document. It stops on Ctrl-C, when
// standard output closes, after --max-events, or once event --until-seq is printed. Like
// `show --record`, text leaves out the source's noise unless --all or --type says otherwise
// (record-filter.ts): it says so when it first hides one, and counts them when it stops.

import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { assertSessionId, canonicalEventJson, type LogEvent } from '../../log/index.js';
import { DEFAULT_POLL_MS, followSession, resolveSessionId } from '../../store/index.js';
import type { CommandContext } from '../context.js';
import { checkTypeNames, HiddenEvents, recordSelection } from '../record-filter.js';
import { type RenderOptions, renderRecordEvent } from '../render-text.js';
import { escapeTerminalText } from '../terminal-text.js';
import { UsageError } from '../usage-error.js';

export interface FollowCommandOptions {
  /** The first event to print (default 0). */
  readonly fromSeq?: number;
  /** Stop after printing this many events. */
  readonly maxEvents?: number;
  /** Stop once the event with this seq is printed. */
  readonly untilSeq?: number;
  /** How often to look for new events on a store that cannot be watched (SQLite), in milliseconds. */
  readonly pollMs?: number;
  readonly full: boolean;
  /** Only events of these types (`noun/*` names a namespace). */
  readonly types?: readonly string[];
  /** Text: the source's noise too. */
  readonly all?: boolean;
}

export async function followCommand(context: CommandContext, given: string, options: FollowCommandOptions): Promise<number> {
  assertSessionId(given);
  const fromSeq = options.fromSeq ?? 0;
  if (options.untilSeq !== undefined && options.untilSeq < fromSeq) {
    throw new UsageError(`--until-seq ${options.untilSeq} is before --from ${fromSeq}; nothing would be printed`);
  }
  const selection = recordSelection(options, context.json);
  // The types of events still to come are not known: a name is checked for its form only.
  checkTypeNames(selection);
  const store = await context.store();
  const sessionId = await resolveSessionId(store, given);
  const pollMs = options.pollMs ?? DEFAULT_POLL_MS;
  const { stdout, stderr } = context.io;
  const render: RenderOptions = { maxChars: options.full ? 0 : 600 };
  const format = (event: LogEvent) =>
    context.json ? canonicalEventJson(event) : escapeTerminalText(renderRecordEvent(event, render, undefined));

  const stopping = new AbortController();
  const stop = () => stopping.abort();
  const stopped = context.io.signal;
  if (stopped?.aborted === true) stop();
  stopped?.addEventListener('abort', stop);
  // Ctrl-C stops the follow; a second one, should the first not be heard, ends the process.
  const interrupt = () => {
    if (!stopping.signal.aborted) return stop();
    process.off('SIGINT', interrupt);
    process.kill(process.pid, 'SIGINT');
  };
  process.on('SIGINT', interrupt);
  // A closed pipe (`… | head`) ends the follow instead of the process.
  stdout.on('error', stop);
  try {
    if (!context.json) context.print(`following ${sessionId} from event #${fromSeq}: each event as it lands (Ctrl-C stops)`);
    let printed = 0;
    const hidden = new HiddenEvents(selection);
    const follower = followSession(store, sessionId, {
      fromSeq,
      pollMs,
      signal: stopping.signal,
      onWatchLost: (error) => {
        const message = error instanceof Error ? error.message : String(error);
        stderr.write(`shadowlog: warning: ${message}; looking for new events every ${pollMs} ms instead\n`);
      },
    });
    for await (const page of follower) {
      let chunk = '';
      let done = false;
      for (const event of page) {
        // --until-seq stops at that event whether it is printed or left out.
        done = event.seq === options.untilSeq;
        if (hidden.shows(event.type)) {
          chunk += `${format(event)}\n`;
          printed++;
          done ||= printed === options.maxEvents;
        } else if (hidden.hidden === 1 && selection.kind === 'default') {
          chunk += `${escapeTerminalText(`(${event.type} and the other lines kept whole from another harness's files are hidden as they land; --all shows them)`)}\n`;
        }
        if (done) break;
      }
      await write(stdout, chunk, stopping.signal);
      if (done) break;
    }
    // Said when it stops (Ctrl-C too), unless the reader has gone.
    const summary = context.json ? '' : hidden.summary();
    if (summary !== '' && !stdout.destroyed && !stdout.writableEnded)
      await write(stdout, `${escapeTerminalText(summary)}\n`, stopping.signal);
  } finally {
    stopped?.removeEventListener('abort', stop);
    process.off('SIGINT', interrupt);
    stdout.off('error', stop);
  }
  return 0;
}

/** Writes `chunk`, waiting for the reader to catch up when the stream asks for it (or until stopped). */
async function write(stream: Writable, chunk: string, signal: AbortSignal): Promise<void> {
  if (stream.write(chunk) || signal.aborted) return;
  await once(stream, 'drain', { signal }).catch(() => {});
}
