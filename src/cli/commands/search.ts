// `shadowlog search TEXT`: text, tool names and arguments, tool results, paths and summaries
// across the store's sessions (or one), each hit with its session, seq, turn and step, and
// whether it is on the surface or an original a compaction or prune shadowed.

import type { Command } from 'commander';
import { assertSessionId } from '../../log/index.js';
import {
  DEFAULT_SEARCH_LIMIT,
  MAX_SEARCH_LIMIT,
  resolveSessionId,
  SEARCH_KINDS,
  type SearchHit,
  type SearchKind,
  type SearchResult,
  searchStore,
} from '../../store/index.js';
import { integerArgument, type RunCommand } from '../command-kit.js';
import type { CommandContext } from '../context.js';
import { UsageError } from '../usage-error.js';

export interface SearchOptions {
  readonly regex?: boolean;
  readonly type?: readonly string[];
  readonly session?: string;
  readonly limit?: number;
}

export async function searchCommand(context: CommandContext, text: string, options: SearchOptions): Promise<number> {
  const kinds = options.type === undefined ? undefined : parseKinds(options.type);
  if (options.session !== undefined) assertSessionId(options.session);
  const store = await context.store();
  // --session takes what every command takes: the id, a unique prefix, or the harness's own id.
  const sessionId = options.session === undefined ? undefined : await resolveSessionId(store, options.session);
  const query = {
    text,
    regex: options.regex === true,
    ...(kinds === undefined ? {} : { kinds }),
    ...(sessionId === undefined ? {} : { sessionId }),
    limit: options.limit ?? DEFAULT_SEARCH_LIMIT,
  };
  const result = await searchStore(store, query);
  if (context.json) {
    context.printJson({ query, ...result });
    return 0;
  }
  printHits(context, text, result, query.limit);
  return 0;
}

/** `--type tool-call,tool-result` and `--type summary --type message` both work. */
function parseKinds(values: readonly string[]): SearchKind[] {
  const kinds = values.flatMap((value) => value.split(',')).map((value) => value.trim());
  const unknown = kinds.filter((kind) => !(SEARCH_KINDS as readonly string[]).includes(kind));
  if (unknown.length > 0 || kinds.length === 0) {
    throw new UsageError(`--type: expected one or more of ${SEARCH_KINDS.join(', ')}, found ${unknown.join(', ') || 'none'}`);
  }
  return kinds as SearchKind[];
}

function printHits(context: CommandContext, text: string, result: SearchResult, limit: number): void {
  if (result.hits.length === 0) {
    context.print(`no hits for ${JSON.stringify(text)}`);
    return;
  }
  let session: string | undefined;
  for (const hit of result.hits) {
    if (hit.sessionId !== session) {
      session = hit.sessionId;
      context.print(`${session}`);
    }
    context.print(`  #${hit.seq}  ${position(hit)}  ${hit.kind} (${hit.type})  ${place(hit)}`);
    context.print(`      ${hit.snippet}`);
  }
  const sessions = new Set(result.hits.map((hit) => hit.sessionId)).size;
  const count = `${result.hits.length} hit${result.hits.length === 1 ? '' : 's'} in ${sessions} session${sessions === 1 ? '' : 's'}`;
  const more = result.truncated
    ? `; more exist${limit < MAX_SEARCH_LIMIT ? `: --limit ${Math.min(limit * 4, MAX_SEARCH_LIMIT)} shows more` : ''}, or narrow with --session or --type`
    : '';
  context.print(`${count}${more}`);
}

function position(hit: SearchHit): string {
  if (hit.turn === undefined) return 'before any turn';
  return hit.step === undefined ? `turn ${hit.turn}` : `turn ${hit.turn} step ${hit.step}`;
}

function place(hit: SearchHit): string {
  if (hit.place === 'shadowed') return `shadowed by #${hit.shadowedBy}`;
  return hit.place === 'surface' ? 'on the surface' : 'log only';
}

/** Registers `shadowlog search` on the program. */
export function registerSearchCommand(program: Command, run: RunCommand): void {
  program
    .command('search <text>')
    .description('find text, tool names and arguments, tool results, paths and summaries across sessions, with session and seq')
    .option(
      '--regex',
      'TEXT is a JavaScript regular expression (case-sensitive), tested on every candidate text: a scan, not an index lookup',
    )
    .option(
      '--type <kinds>',
      `only these kinds of text, comma-separated: ${SEARCH_KINDS.join(', ')}`,
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option('--session <id>', "only this session (its id, a unique prefix, or its harness's own id)")
    .option('--limit <n>', `at most this many hits (default ${DEFAULT_SEARCH_LIMIT})`, (value: string) =>
      integerArgument(value, `a limit from 1 to ${MAX_SEARCH_LIMIT}`, 1),
    )
    .action((text: string, options: SearchOptions) => run('read', (context) => searchCommand(context, text, options))());
}
