// `shadowlog otel <id…> | --all`: sessions as OpenTelemetry traces (the GenAI semantic conventions)
// sent to an OTLP/HTTP endpoint, a batch at a time. Ids are derived from the session id and seqs,
// so a second export sends the same spans (a backend keeps one copy) and `--since SEQ` sends only
// the spans that ended at or after SEQ. Headers (credentials) come from OTEL_EXPORTER_OTLP_HEADERS
// and are never printed.

import { type Command, Option } from 'commander';
import { assertSessionId } from '../../log/index.js';
import {
  DEFAULT_CONTENT_MAX_BYTES,
  exportSessionSpans,
  OTLP_PROTOCOLS,
  OtlpSpanSender,
  resolveOtlpSettings,
  type SessionExportSummary,
} from '../../otel/index.js';
import { resolveSessionId } from '../../store/index.js';
import { integerArgument, type RunCommand } from '../command-kit.js';
import type { CommandContext } from '../context.js';
import { UsageError } from '../usage-error.js';

export interface OtelCommandOptions {
  readonly all: boolean;
  readonly endpoint?: string;
  readonly protocol?: string;
  readonly content: boolean;
  readonly contentMaxBytes?: number;
  readonly openInference: boolean;
  readonly since?: number;
  readonly batchSize?: number;
}

export async function otelCommand(context: CommandContext, given: readonly string[], options: OtelCommandOptions): Promise<number> {
  if (options.all === given.length > 0) throw new UsageError('otel takes session ids or --all, not both and not neither');
  if (options.contentMaxBytes !== undefined && !options.content)
    throw new UsageError('--content-max-bytes bounds the content --content adds; give --content too');
  if (options.since !== undefined && given.length + (options.all ? 2 : 0) > 1) {
    throw new UsageError('--since SEQ names a seq of one session: give one session id with it');
  }
  for (const id of given) assertSessionId(id);
  // Settings first: a missing endpoint or a bad protocol is refused before the store is opened.
  const settings = resolveOtlpSettings({
    ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint }),
    ...(options.protocol === undefined ? {} : { protocol: options.protocol }),
  });
  const store = await context.store();
  const ids = options.all
    ? (await store.listSessions()).map((session) => session.id)
    : await Promise.all(given.map((id) => resolveSessionId(store, id)));
  const sender = new OtlpSpanSender(settings);
  const summaries: SessionExportSummary[] = [];
  try {
    for (const sessionId of ids) {
      summaries.push(
        await exportSessionSpans(store, sessionId, sender, {
          content: options.content,
          ...(options.contentMaxBytes === undefined ? {} : { contentMaxBytes: options.contentMaxBytes }),
          openInference: options.openInference,
          ...(options.since === undefined ? {} : { sinceSeq: options.since }),
          ...(options.batchSize === undefined ? {} : { batchSize: options.batchSize }),
        }),
      );
      if (!context.json) context.print(describe(summaries.at(-1) as SessionExportSummary));
    }
  } finally {
    await sender.shutdown();
  }
  const spans = summaries.reduce((total, summary) => total + summary.spans, 0);
  if (context.json)
    context.printJson({ endpoint: settings.url, protocol: settings.protocol, content: options.content, spans, sessions: summaries });
  else
    context.print(
      `sent ${spans.toLocaleString('en-US')} spans of ${plural(summaries.length, 'session')} to ${settings.url} (${settings.protocol}${options.content ? ', with content' : ''})`,
    );
  return 0;
}

function describe(summary: SessionExportSummary): string {
  const kinds = summary.byKind;
  return `${summary.sessionId}: ${summary.spans.toLocaleString('en-US')} spans from ${summary.events.toLocaleString('en-US')} events (${plural(kinds.invoke_agent, 'lifecycle')}, ${plural(kinds.turn, 'turn')}, ${plural(kinds.chat, 'model call')}, ${plural(kinds.execute_tool, 'tool call')}, ${plural(kinds.compaction, 'compaction')}, ${plural(kinds.prune, 'prune')})`;
}

function plural(count: number, noun: string): string {
  return `${count.toLocaleString('en-US')} ${noun}${count === 1 ? '' : 's'}`;
}

/** Registers `shadowlog otel` on the program. */
export function registerOtelCommand(program: Command, run: RunCommand): void {
  program
    .command('otel [ids...]')
    .description(
      'send sessions as OpenTelemetry traces (GenAI semantic conventions) to an OTLP/HTTP endpoint: a root invoke_agent span per lifecycle, a span per turn, chat spans per model call, execute_tool spans, compactions and prunes; ids are derived from the session, so a second export sends the same spans',
    )
    .option('--all', 'every session in the store')
    .option(
      '--endpoint <url>',
      'the collector: a base URL (http://127.0.0.1:4318, /v1/traces is added) or the full traces URL (default: $OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, $OTEL_EXPORTER_OTLP_ENDPOINT)',
    )
    .addOption(
      new Option('--protocol <protocol>', 'the OTLP encoding (default: $OTEL_EXPORTER_OTLP_PROTOCOL, else http/protobuf)').choices([
        ...OTLP_PROTOCOLS,
      ]),
    )
    .option(
      '--content',
      'add message content: gen_ai.input.messages (the surface each call was sent), gen_ai.output.messages, gen_ai.system_instructions, tool arguments and results (none by default)',
    )
    .option(
      '--content-max-bytes <bytes>',
      `the most one content attribute holds, in UTF-8 bytes (default ${DEFAULT_CONTENT_MAX_BYTES.toLocaleString('en-US')}); longer text is cut and the span marked`,
      (value) => integerArgument(value, 'bytes', 256),
    )
    .option('--openinference', 'add the OpenInference attributes (openinference.span.kind, llm.*, session.id) that Arize Phoenix reads')
    .option('--since <seq>', 'send only the spans that ended at or after this seq (what is new since an earlier export)', (value) =>
      integerArgument(value, 'a seq', 0),
    )
    .option('--batch-size <spans>', 'spans per request (default 512)', (value) => integerArgument(value, 'spans', 1))
    .action(
      (
        ids: string[],
        options: {
          all?: boolean;
          endpoint?: string;
          protocol?: string;
          content?: boolean;
          contentMaxBytes?: number;
          openinference?: boolean;
          since?: number;
          batchSize?: number;
        },
      ) =>
        run('read', (context) =>
          otelCommand(context, ids, {
            all: options.all === true,
            content: options.content === true,
            openInference: options.openinference === true,
            ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint }),
            ...(options.protocol === undefined ? {} : { protocol: options.protocol }),
            ...(options.contentMaxBytes === undefined ? {} : { contentMaxBytes: options.contentMaxBytes }),
            ...(options.since === undefined ? {} : { since: options.since }),
            ...(options.batchSize === undefined ? {} : { batchSize: options.batchSize }),
          }),
        )(),
    );
}
