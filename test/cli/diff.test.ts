// `shadowlog diff <id> <call> <call>` (issue 26, item 5): what changed on the surface between two
// model calls, as the audit page's panel shows it, with tokens by the meter `stats --calls` uses.
// On the demo session across its compaction and across its prune, on the demo of the mask
// strategy, on the Claude Code session of the corpus across the compaction Claude Code made, and
// on a session the real proxy recorded: a client's own rewrite, and a call off the surface, which
// has no surface to diff. The figures are checked against the ones the compactions recorded.

import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallDiffReport } from '../../src/cli/call-diff.js';
import { startProxy } from '../../src/proxy/index.js';
import { openSqliteStore } from '../../src/store/sqlite/index.js';
import { startChatCompletionUpstream } from '../support/chat-completion-upstream.js';
import { createCliWorkspace } from '../support/cli.js';
import { CORPUS_FILES, corpusFile } from '../support/corpus-sessions.js';

const CLAUDE = 'claude-code-4d5611e5-241a-462a-8d15-5122611a9569';

interface RecordedEvent {
  readonly seq: number;
  readonly type: string;
  readonly data: Record<string, unknown>;
}

/** Every event of a session, of the types given. */
async function eventsOf(run: (args: string[]) => Promise<{ stdout: string }>, id: string, types: string): Promise<RecordedEvent[]> {
  return (JSON.parse((await run(['--json', 'show', id, '--record', '--type', types])).stdout) as { events: RecordedEvent[] }).events;
}

/** The first event of a list, which the test needs to be there. */
function firstOf(events: readonly RecordedEvent[]): RecordedEvent {
  const [first] = events;
  if (first === undefined) throw new Error('the session holds no such event');
  return first;
}

/** before + appended − replaced + what replaced them − gone = after, in every report. */
function expectTokensAddUp(report: CallDiffReport): void {
  const { tokens } = report;
  expect(tokens.before + tokens.appended - tokens.shadowed + tokens.replacements - tokens.removed).toBe(tokens.after);
  expect(tokens.before).toBe(report.from.surfaceTokens);
  expect(tokens.after).toBe(report.to.surfaceTokens);
}

describe('shadowlog diff', () => {
  const workspace = createCliWorkspace();
  const store = ['--store', `sqlite:${workspace.cwd}/store.db`];
  const run = (args: string[]) => workspace.run([...store, ...args]);
  const diff = async (...args: string[]) => {
    const result = await run(['--json', 'diff', ...args]);
    expect(result.code, result.stderr).toBe(0);
    return JSON.parse(result.stdout) as CallDiffReport;
  };
  let upstream: Server | undefined;

  beforeAll(async () => {
    for (const args of [
      ['demo', '--session', 'd'],
      ['demo', '--strategy', 'mask', '--session', 'm'],
    ]) {
      const result = await run(args);
      expect(result.code, result.stderr).toBe(0);
    }
    const imported = await run(['import', corpusFile(CORPUS_FILES.claudeMain)]);
    expect(imported.code, imported.stderr).toBe(0);

    // A client that rewrites its own history, and a body the proxy cannot read.
    const any = await startChatCompletionUpstream();
    upstream = any.server;
    const sqlite = await openSqliteStore(`${workspace.cwd}/store.db`);
    const proxy = await startProxy({ store: sqlite, upstreams: { openai: any.url }, port: 0 });
    const system = { role: 'system', content: 'be brief' };
    const first = { role: 'user', content: 'the first question, in full' };
    for (const body of [
      { model: 'gpt-4o', messages: [system, first] },
      { model: 'gpt-4o', messages: [system, first, { role: 'assistant', content: 'ok' }, { role: 'user', content: 'second' }] },
      'not json at all',
      {
        model: 'gpt-4o',
        messages: [system, { role: 'user', content: 'a summary of what came before' }, { role: 'user', content: 'third' }],
      },
    ]) {
      const response = await fetch(`${proxy.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-shadowlog-session': 'px' },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
      await response.arrayBuffer();
    }
    await proxy.settled();
    await proxy.close();
    await sqlite.close();
  }, 120_000);
  afterAll(async () => {
    if (upstream !== undefined) await new Promise((done) => upstream?.close(done));
    workspace.cleanup();
  });

  it('shows a compaction between two calls: the nodes it replaced and its summary, priced as the compaction priced them', async () => {
    const report = await diff('d', '4.2', '5.1');
    const summary = firstOf(await eventsOf(run, 'd', 'compaction/summary'));
    const summaryData = summary.data as {
      compactionId: string;
      shadowedSeqs: number[];
      shadowedTokenCount: number;
      summaryTokens: number;
    };
    expect(report.replaced).toHaveLength(1);
    const [change] = report.replaced;
    expect(change).toMatchObject({
      kind: 'compacted',
      type: 'user/message',
      since: [],
      via: [],
      by: { seq: summary.seq, type: 'compaction/summary', compactionId: summaryData.compactionId },
    });
    expect(change?.shadowed.map((node) => node.seq)).toEqual(summaryData.shadowedSeqs);
    // The same meter: the compaction's own count of what it shadowed and of its summary.
    expect(change?.shadowed.reduce((total, node) => total + node.tokens, 0)).toBe(summaryData.shadowedTokenCount);
    expect(change?.tokens).toBe(summaryData.summaryTokens);
    expect(report.appended.map((node) => node.type)).toEqual(['assistant/message', 'user/message']);
    expect(report.removed).toEqual([]);
    expectTokensAddUp(report);

    // The call estimates are stats --calls's.
    const calls = JSON.parse((await run(['--json', 'stats', 'd', '--calls'])).stdout) as {
      calls: Array<{ seq: number; estimatedTokens: number; reportedInputTokens: number | null }>;
    };
    for (const side of [report.from, report.to]) {
      const row = calls.calls.find((call) => call.seq === side.seq);
      expect(side).toMatchObject({ estimatedTokens: row?.estimatedTokens, reportedInputTokens: row?.reportedInputTokens });
    }

    const text = await run(['diff', 'd', '4.2', '5.1']);
    expect(text.code, text.stderr).toBe(0);
    const [first, ...surfaceLines] = summaryData.shadowedSeqs;
    expect(text.stdout.split('\n')).toEqual([
      'what changed on the surface of d from call 4.2 to call 5.1',
      `  call 4.2 (event #${report.from.seq}, scripted/demo-script): 20 nodes, ${report.from.surfaceTokens.toLocaleString('en-US')} tokens on the surface by script-aware; ${report.from.estimatedTokens?.toLocaleString('en-US')} tokens estimated for the whole call, ${report.from.reportedInputTokens?.toLocaleString('en-US')} tokens reported`,
      `  call 5.1 (event #${report.to.seq}, scripted/demo-script): 8 nodes, ${report.to.surfaceTokens.toLocaleString('en-US')} tokens on the surface by script-aware; ${report.to.estimatedTokens?.toLocaleString('en-US')} tokens estimated for the whole call, ${report.to.reportedInputTokens?.toLocaleString('en-US')} tokens reported`,
      `+ 2 appended (${report.tokens.appended} tokens): ${report.appended.map((node) => `#${node.seq} ${node.type.split('/')[0]}`).join(', ')}`,
      `▤ compacted: #${first} … #${surfaceLines.at(-1)}: ${summaryData.shadowedSeqs.length} nodes (${summaryData.shadowedTokenCount.toLocaleString('en-US')} tokens) → #${change?.seq} user (${summaryData.summaryTokens} tokens), by compaction ${summaryData.compactionId.slice(0, 8)}, its summary #${summary.seq}`,
      `tokens on the surface: ${report.tokens.before.toLocaleString('en-US')} → ${report.tokens.after.toLocaleString('en-US')} (−${(report.tokens.before - report.tokens.after).toLocaleString('en-US')}): +${report.tokens.appended} appended, ${summaryData.shadowedTokenCount.toLocaleString('en-US')} replaced by ${summaryData.summaryTokens}`,
      '',
    ]);
  });

  it('shows a tool result pruned before it was first sent as appended, standing for its original', async () => {
    const prune = firstOf(await eventsOf(run, 'd', 'compaction/prune'));
    const pruned = (prune.data as { shadowedSeqs: number[] }).shadowedSeqs[0];
    const report = await diff('d', '4.1', '4.2');
    expect(report.replaced).toEqual([]);
    expect(report.appended.at(-1)).toMatchObject({
      type: 'tool/result',
      replaces: {
        kind: 'pruned',
        since: [{ seq: pruned, type: 'tool/result' }],
        via: [],
        by: { seq: prune.seq, type: 'compaction/prune' },
      },
    });
    expectTokensAddUp(report);
    const text = (await run(['diff', 'd', '4.1', '4.2'])).stdout;
    expect(text).toContain(
      `    #${report.appended.at(-1)?.seq} stands for #${pruned} tool (${report.appended.at(-1)?.replaces?.since[0]?.tokens.toLocaleString('en-US')} tokens), which came after call 4.1: pruned by the pruner, #${prune.seq}\n`,
    );
  });

  it('follows a summary of a summary back to the nodes of a call far earlier', async () => {
    const report = await diff('d', '4.1', '9.2');
    const summaries = await eventsOf(run, 'd', 'compaction/summary');
    expect(report.replaced).toHaveLength(1);
    const [change] = report.replaced;
    expect(change?.by?.seq).toBe(summaries[1]?.seq);
    // Through the first summary and the pruned result, both made between the two calls.
    expect(change?.via).toHaveLength(2);
    expect(report.removed).toEqual([]);
    expectTokensAddUp(report);
  });

  it('names each masked tool result, and the same call twice is no change', async () => {
    const mask = firstOf(await eventsOf(run, 'm', 'compaction/mask'));
    const report = await diff('m', '5.1', '5.2');
    expect(report.replaced.length).toBeGreaterThan(1);
    expect(report.replaced.every((change) => change.kind === 'masked' && change.type === 'tool/result')).toBe(true);
    expect(report.replaced[0]?.by).toMatchObject({ seq: mask.seq, type: 'compaction/mask' });
    expect(report.replaced[0]?.shadowed.map((node) => node.seq)).toEqual((mask.data as { shadowedSeqs: number[] }).shadowedSeqs);
    expectTokensAddUp(report);
    expect((await run(['diff', 'm', '5.2', '5.2'])).stdout).toContain('\nno change\n');
  });

  it("shows Claude Code's own compaction, imported, with what it shadowed after the earlier call", async () => {
    const report = await diff(CLAUDE, '2.43', '2.44');
    const summary = firstOf(await eventsOf(run, CLAUDE, 'compaction/summary'));
    const data = summary.data as { shadowedSeqs: number[]; shadowedTokenCount: number; summaryTokens: number; compactionId: string };
    const [change] = report.replaced;
    expect(report.replaced).toHaveLength(1);
    expect(change?.by).toEqual({
      seq: summary.seq,
      type: 'compaction/summary',
      compactionId: data.compactionId,
      importedFrom: 'claude-code',
    });
    expect([...(change?.shadowed ?? []), ...(change?.since ?? [])].map((node) => node.seq).sort((a, b) => a - b)).toEqual(
      data.shadowedSeqs,
    );
    const tokens = [...(change?.shadowed ?? []), ...(change?.since ?? [])].reduce((total, node) => total + node.tokens, 0);
    expect(tokens).toBe(data.shadowedTokenCount);
    expect(change?.tokens).toBe(data.summaryTokens);
    expect(report.to).toMatchObject({ provenance: 'imported', nodes: 1 });
    expectTokensAddUp(report);
  }, 30_000);

  it("says a client's rewrite has no compaction event, and refuses a call off the surface", async () => {
    const report = await diff('px', '2.1', '3.1');
    expect(report.replaced).toMatchObject([{ kind: 'replaced', by: null }]);
    expect((await run(['diff', 'px', '2.1', '3.1'])).stdout).toContain(
      ', with no compaction event: the client rewrote its history, as the proxy recorded it\n',
    );
    const off = await run(['diff', 'px', '2.1', '2.2']);
    expect(off.code).toBe(1);
    expect(off.stdout).toBe('');
    expect(off.stderr).toMatch(
      /^shadowlog: CALL_OFF_SURFACE: call 2\.2 \(event #\d+\) of px is not on the session's surface: the proxy could not read its body: [^\n]+; `shadowlog replay px --turn 2 --step 2` lists what its body held\n$/,
    );
  });

  it('refuses calls it cannot name or find, the later call first, and an unknown session', async () => {
    const cases: Array<[string[], number, string]> = [
      [
        ['d', '5.1', '4.2'],
        2,
        'shadowlog: USAGE: call 5.1 (event #49) comes after call 4.2 (event #40): name the earlier call first (shadowlog diff d 4.2 5.1)\n',
      ],
      [
        ['d', '1.1', '11'],
        1,
        'shadowlog: NO_SUCH_CALL: session d has no model call 11.1 (turn 11, step 1); its model calls are in turns 1 to 10\n',
      ],
      [
        ['d', 'turn3', '4'],
        2,
        'shadowlog: USAGE: a call is named TURN.STEP, as replay (--turn 3 --step 2) and the audit page (call 3.2) name it, or TURN for its first step; found "turn3"\n',
      ],
      [['d', '0.1', '4'], 2, expect.stringContaining('shadowlog: USAGE: a call is named TURN.STEP') as unknown as string],
      [['nope', '1', '2'], 1, expect.stringMatching(/^shadowlog: SESSION_NOT_FOUND: /) as unknown as string],
    ];
    for (const [args, code, stderr] of cases) {
      const result = await run(['diff', ...args]);
      expect(result.code, args.join(' ')).toBe(code);
      expect(result.stdout).toBe('');
      expect(result.stderr).toEqual(stderr);
    }
  });
});
