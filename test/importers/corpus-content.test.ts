// What each corpus session's messages become: thinking and encrypted reasoning as reasoning
// blocks with their signature or data, Codex's web searches as server tool calls (not text),
// every assistant message's model and every call's model kept through model switches, and the
// usage each provider counted.

import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AssistantMessageData, ContentBlock, LogEvent, ModelRequestData } from '../../src/log/event.js';
import { openSqliteStore, type SqliteLogStore } from '../../src/store/sqlite/index.js';
import { createCliWorkspace } from '../support/cli.js';
import { CORPUS_FILES, corpusFile } from '../support/corpus-sessions.js';
import { rowsOf } from './support/source-counts.js';

const workspace = createCliWorkspace();
const databasePath = join(workspace.cwd, 'content.db');
let sqlite: SqliteLogStore;

async function eventsOf(sessionId: string): Promise<LogEvent[]> {
  const events: LogEvent[] = [];
  for await (const page of sqlite.read(sessionId)) events.push(...page);
  return events;
}

const answers = (events: readonly LogEvent[]) =>
  events.filter((event) => event.type === 'assistant/message').map((event) => event.data as unknown as AssistantMessageData);
const blocks = (events: readonly LogEvent[], type: ContentBlock['type']) =>
  answers(events).flatMap((answer) => answer.content.filter((block) => block.type === type));

beforeAll(async () => {
  const files = [CORPUS_FILES.claudeMain, CORPUS_FILES.codexOld, CORPUS_FILES.codexCompacted, CORPUS_FILES.pi].map(corpusFile);
  const imported = await workspace.run(['--store', `sqlite:${databasePath}`, 'import', ...files]);
  expect(imported.code, imported.stderr).toBe(0);
  sqlite = await openSqliteStore(databasePath, { readOnly: true });
});

afterAll(async () => {
  await sqlite?.close();
  workspace.cleanup();
});

describe('the content of the corpus sessions, mapped', () => {
  it('keeps Claude Code thinking as reasoning blocks with their signatures', async () => {
    const thinking = rowsOf(corpusFile(CORPUS_FILES.claudeMain))
      .filter((row) => row.type === 'assistant')
      .flatMap((row) =>
        ((row.message?.content ?? []) as Array<{ type: string; thinking?: string; signature?: string }>).filter(
          (block) => block.type === 'thinking',
        ),
      );
    const reasoning = blocks(await eventsOf('claude-code-4d5611e5-241a-462a-8d15-5122611a9569'), 'reasoning');
    expect(reasoning).toEqual(
      thinking.map((block) => ({ type: 'reasoning', provider: 'anthropic', text: block.thinking, signature: block.signature })),
    );
    expect(reasoning).toHaveLength(14);
  });

  it("keeps Codex's encrypted reasoning as reasoning blocks with its data and summary, and its web searches as server tool calls", async () => {
    const events = await eventsOf('codex-019c8a59-e9dd-71f0-9ae3-4079fe9726a9');
    const rows = rowsOf(corpusFile(CORPUS_FILES.codexCompacted)).filter((row) => row.type === 'response_item');
    const searches = rows.filter((row) => row.payload?.type === 'web_search_call').map((row) => row.payload as Record<string, unknown>);
    expect(blocks(events, 'server-tool-call')).toEqual(
      searches.map((search) => ({
        type: 'server-tool-call',
        provider: 'openai',
        name: 'web_search',
        input: search.action,
        status: search.status,
      })),
    );
    expect(searches).toHaveLength(7);
    const reasoning = blocks(events, 'reasoning');
    expect(reasoning).toHaveLength(rows.filter((row) => row.payload?.type === 'reasoning').length);
    expect(reasoning.every((block) => block.type === 'reasoning' && block.data !== undefined && block.summary !== undefined)).toBe(true);
    // No text was made up for what the provider ran or thought.
    expect(blocks(events, 'text').some((block) => block.type === 'text' && /web_search|reasoning/.test(block.text))).toBe(false);
  });

  it("keeps each call's usage as the provider counted it: Codex's last_token_usage, its cached and reasoning parts", async () => {
    const events = await eventsOf('codex-019a93b9-f380-7600-98ff-940e6b99603c');
    const counts = rowsOf(corpusFile(CORPUS_FILES.codexOld))
      .filter((row) => row.payload?.type === 'token_count' && row.payload.info !== null)
      .map((row) => row.payload?.info as { last_token_usage: Record<string, number>; total_token_usage: unknown })
      .filter(
        (info, index, all) => index === 0 || JSON.stringify(info.total_token_usage) !== JSON.stringify(all[index - 1]?.total_token_usage),
      );
    expect(answers(events).map((answer) => answer.usage)).toEqual(
      counts.map(({ last_token_usage: last }) => ({
        inputTokens: last.input_tokens,
        outputTokens: last.output_tokens,
        cacheReadTokens: last.cached_input_tokens,
        reasoningTokens: last.reasoning_output_tokens,
      })),
    );
    const requests = events.filter((event) => event.type === 'model/request').map((event) => event.data as unknown as ModelRequestData);
    expect(requests.every((request) => request.contextWindow === 258_400 && request.model === 'gpt-5.1-codex')).toBe(true);
  });

  it("keeps pi's models through its model switch, and its usage with the cache parts in the whole input", async () => {
    const events = await eventsOf('pi-d703a1a9-1b7b-4fb1-b512-c9738b1fe617');
    const requests = events
      .filter((event) => event.type === 'model/request')
      .map((event) => (event.data as unknown as ModelRequestData).model);
    const sourceModels = rowsOf(corpusFile(CORPUS_FILES.pi))
      .filter((row) => row.type === 'message' && row.message?.role === 'assistant')
      .map((row) => row.message?.model);
    expect(requests).toEqual(sourceModels);
    expect(new Set(requests)).toEqual(new Set(['gpt-5.1-codex', 'claude-sonnet-4-5']));
    const firstAnswer = answers(events)[0];
    // pi's usage of its second assistant message: input 3, cacheRead 0, cacheWrite 1,684, output 191.
    expect(firstAnswer?.usage).toEqual({ inputTokens: 1687, outputTokens: 191, cacheReadTokens: 0, cacheWriteTokens: 1684 });
  });

  it("records pi's aborted and errored answers as failed calls, which pi does not send again, with the usage they were counted", async () => {
    const events = await eventsOf('pi-d703a1a9-1b7b-4fb1-b512-c9738b1fe617');
    const failed = events.filter((event) => event.type === 'model/error');
    const source = rowsOf(corpusFile(CORPUS_FILES.pi)).filter(
      (row) => row.type === 'message' && (row.message?.stopReason === 'aborted' || row.message?.stopReason === 'error'),
    );
    expect(failed.map((event) => event.data.code)).toEqual(source.map((row) => row.message?.stopReason));
    expect(failed.filter((event) => event.data.usage !== undefined)).toHaveLength(8);
    const turnEnds = events.filter((event) => event.type === 'turn/end').map((event) => event.data.reason);
    expect(turnEnds).toContain('aborted');
  });
});
