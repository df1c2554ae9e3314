// `shadowlog whatif <id> --compaction ID`: every call between a compaction and the next, each
// asked again, after the budget is printed; refused without --yes when there is no terminal to
// ask on; bounded by --max-calls. And `--policy FILE`, `sessions` linking what-if sessions to the
// audited one, and the copyable command line.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCliRegistry } from '../../src/cli/registry.js';
import { rendererFor } from '../../src/cli/renderers.js';
import { createOpenAIChatModel } from '../../src/providers/index.js';
import { openSqliteStore } from '../../src/store/sqlite/index.js';
import { askWhatIf, whatifCommandLine } from '../../src/whatif/index.js';
import { callAfter, DEMO_ID, type DemoWhatIf, startDemoWhatIf } from './demo-whatif.js';

interface Report {
  calls: Array<{
    seq: number;
    turn: number;
    step: number;
    changed: boolean;
    tokens: { counterfactual: number };
    counterfactual: Array<{ sessionId: string; digest: string }>;
  }>;
  skipped: Array<{ seq: number }>;
  changed: number;
  compaction: { id: string; seq: number; nextId: string | null; nextSeq: number | null };
  estimate: {
    calls: number;
    requests: number;
    inputTokens: number;
    outputTokens: number;
    costUsd: number | null;
    unpricedModels: string[];
  };
}

describe('whatif --compaction', () => {
  let demo: DemoWhatIf;
  beforeAll(async () => {
    demo = await startDemoWhatIf();
  }, 60_000);
  afterAll(() => demo.close());
  const run = (args: string[]) => demo.workspace.run(args);

  /** The calls between the first compaction and the second. */
  const between = () => {
    const [first, second] = demo.compactions;
    return demo.calls.filter((call) => call.seq > (first?.seq as number) && call.seq < (second?.seq as number));
  };

  it('prints the calls and the budget, then refuses to send without --yes when there is no terminal to ask on', async () => {
    const before = await demo.snapshot();
    const sent = demo.upstream.requests.length;
    const id = demo.compactions[0]?.id as string;
    const result = await run(['whatif', DEMO_ID, '--compaction', id.slice(0, 8), ...demo.askFake]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `shadowlog: WHATIF_NOT_CONFIRMED: whatif --compaction would send ${between().length} requests, and there is no terminal to ask whether to: pass --yes to send them; nothing was sent\n`,
    );
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(
      new RegExp(
        `^whatif --compaction on ${DEMO_ID}: ${between().length} calls between compaction ${id} \\(#\\d+\\) and the next, ${demo.compactions[1]?.id} \\(#\\d+\\), each asked again of openai/demo-script with ${id} undone; one request per call$`,
      ),
    );
    expect(lines[1]).toMatch(
      new RegExp(
        `^budget: ${between().length} requests for ${between().length} calls \\(--max-calls 20\\), ~[\\d,]+ input and ~[\\d,]+ output tokens \\(estimated; output as long as the recorded answers\\), cost unknown: demo-script is not in the price table of \\d{4}-\\d{2}-\\d{2} \\(give prices with --prices FILE\\)$`,
      ),
    );
    expect(demo.upstream.requests.length).toBe(sent);
    expect(await demo.snapshot()).toBe(before);
  });

  it('asks each call once, within --max-calls, and says on how many the answer changed', async () => {
    const sent = demo.upstream.requests.length;
    const id = demo.compactions[0]?.id as string;
    const prices = join(demo.workspace.cwd, 'prices.json');
    writeFileSync(
      prices,
      JSON.stringify({
        date: '2026-12-01',
        models: { 'demo-script': { input: 1, cachedInput: 0.1, cacheWrite: 1, output: 4, cacheRule: 'openai' } },
      }),
    );
    const result = await run([
      'whatif',
      DEMO_ID,
      '--compaction',
      id,
      '--restore',
      'all',
      '--max-calls',
      '3',
      '--yes',
      '--prices',
      prices,
      ...demo.askFake,
      '--json',
    ]);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as Report;
    expect(report.calls.map((call) => call.seq)).toEqual(
      between()
        .slice(0, 3)
        .map((call) => call.seq),
    );
    expect(report.skipped.map((call) => call.seq)).toEqual(
      between()
        .slice(3)
        .map((call) => call.seq),
    );
    expect(demo.upstream.requests.length).toBe(sent + 3);
    // The estimate printed before anything was sent is the sum of what the requests carry.
    expect(report.estimate).toMatchObject({ calls: 3, requests: 3, unpricedModels: [] });
    expect(report.estimate.inputTokens).toBe(report.calls.reduce((sum, call) => sum + call.tokens.counterfactual, 0));
    expect(report.estimate.costUsd).toBeCloseTo((report.estimate.inputTokens * 1 + report.estimate.outputTokens * 4) / 1_000_000, 12);
    expect(report.compaction).toMatchObject({ id, nextId: demo.compactions[1]?.id });
    // The first call after the compaction still held the pruned copy of the file: with it whole, its answer changed.
    expect(report.calls[0]?.changed).toBe(true);
    expect(report.changed).toBe(report.calls.filter((call) => call.changed).length);
    expect(result.stderr).toMatch(
      /^whatif --compaction on .*\nbudget: 3 requests for 3 calls \(--max-calls 3; \d+ later calls left out\), ~[\d,]+ input and ~[\d,]+ output tokens \(estimated; output as long as the recorded answers\), ~\$0\.\d+ at the list prices of 2026-12-01\n$/,
    );
  });

  it('prints the budget before the first call and ends with the calls whose answer changed', async () => {
    const id = demo.compactions[0]?.id as string;
    const result = await run(['whatif', DEMO_ID, '--compaction', id, '--restore', 'all', '--yes', ...demo.askFake]);
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    const calls = between();
    expect(lines[1]).toMatch(/^budget: /);
    expect(
      lines
        .slice(2, 2 + calls.length)
        .every((line, index) => line.startsWith(`turn ${calls[index]?.turn} step ${calls[index]?.step} (#${calls[index]?.seq}): `)),
    ).toBe(true);
    const summary = lines.findIndex((line) => line.startsWith('the answer changed on '));
    expect(lines[summary]).toMatch(new RegExp(`^the answer changed on [1-9]\\d* of ${calls.length} calls:$`));
    expect(lines[summary + 1]).toMatch(
      new RegExp(
        `^ {2}turn ${calls[0]?.turn} step ${calls[0]?.step} \\(#${calls[0]?.seq}\\): "Kraków, with 24 items among the orders I can see \\(the fil…" → "\\S+, with \\d+ items\\." {2}\\(${DEMO_ID}\\.whatif-${calls[0]?.seq}-\\d+\\)$`,
      ),
    );
    expect(result.stdout).not.toMatch(/NaN|undefined/);
  });

  it('refuses a compaction the session does not have, naming those it has', async () => {
    const before = await demo.snapshot();
    const result = await run(['whatif', DEMO_ID, '--compaction', 'zzz', '--yes', ...demo.askFake]);
    expect(result.stderr).toBe(
      `shadowlog: WHATIF_INPUT: the session has no compaction "zzz"; its compactions are ${demo.compactions.map((item) => item.id).join(', ')}\n`,
    );
    expect(await demo.snapshot()).toBe(before);
  });
});

describe('whatif --policy, sessions, and the command line to copy', () => {
  let demo: DemoWhatIf;
  beforeAll(async () => {
    demo = await startDemoWhatIf();
  }, 60_000);
  afterAll(() => demo.close());
  const run = (args: string[]) => demo.workspace.run(args);

  it('asks a call with the surface a policy would have sent, its summary standing for the originals', async () => {
    const file = join(demo.workspace.cwd, 'policy.json');
    writeFileSync(file, JSON.stringify({ headroomTokens: 0, retainTokens: 600 }));
    const call = callAfter(demo, demo.compactions[0]?.seq as number);
    const result = await run(['whatif', DEMO_ID, '--turn', String(call.turn), '--policy', 'policy.json', ...demo.askFake, '--json']);
    expect(result.stderr).toBe('');
    const report = JSON.parse(result.stdout) as {
      calls: Array<{ question: unknown; counterfactual: Array<{ sessionId: string; digest: string }> }>;
    };
    const sessionId = report.calls[0]?.counterfactual[0]?.sessionId as string;
    expect(report.calls[0]?.question).toEqual({ policy: { file: 'policy.json', config: { headroomTokens: 0, retainTokens: 600 } } });
    const record = JSON.parse((await run(['show', sessionId, '--record', '--json'])).stdout) as {
      events: Array<{ type: string; data: Record<string, unknown> }>;
    };
    const made = record.events.filter((event) => event.data.standsFor !== undefined);
    expect(made.length).toBeGreaterThan(0);
    const summary = made.find((event) => JSON.stringify(event.data.content).includes('<compacted-summary>'));
    const standsFor = summary?.data.standsFor as { sessionId: string; seqs: number[] } | undefined;
    expect(standsFor?.sessionId).toBe(DEMO_ID);
    expect(standsFor?.seqs.length).toBeGreaterThan(3);
    expect(JSON.parse((await run(['replay', sessionId, '--turn', '1', '--json'])).stdout)).toMatchObject({ verified: true });
    expect((await run(['verify', sessionId])).code).toBe(0);
    const text = (await run(['show', sessionId, '--record'])).stdout;
    expect(text).toMatch(/^#\d+ user {2}\[made by the what-if, standing for \d+ messages of demo-whatif\]$/m);
  });

  it('refuses a policy file that no policy takes, before reading the session', async () => {
    writeFileSync(join(demo.workspace.cwd, 'bad.json'), JSON.stringify({ thresholdRatio: 3 }));
    const result = await run(['whatif', DEMO_ID, '--turn', '5', '--policy', 'bad.json', ...demo.askFake]);
    expect(result.stderr).toMatch(/^shadowlog: INVALID_CONFIG: [^\n]*thresholdRatio[^\n]*\n$/);
  });

  it('lists each what-if session under the session whose call it asks again, and the link both ways in --json', async () => {
    const call = callAfter(demo, demo.compactions[0]?.seq as number);
    await run(['whatif', DEMO_ID, '--turn', String(call.turn), '--restore', 'all', ...demo.askFake]);
    const sessions = JSON.parse((await run(['sessions', '--json'])).stdout) as Array<{
      id: string;
      whatif?: { sessionId: string; requestSeq: number };
      whatifs?: string[];
    }>;
    const whatifs = sessions.filter((session) => session.whatif !== undefined);
    expect(whatifs.length).toBeGreaterThanOrEqual(2);
    expect(whatifs.every((session) => session.whatif?.sessionId === DEMO_ID)).toBe(true);
    expect(sessions.find((session) => session.id === DEMO_ID)?.whatifs?.sort()).toEqual(whatifs.map((session) => session.id).sort());
    const text = (await run(['sessions'])).stdout;
    expect(text).toMatch(new RegExp(`^${DEMO_ID} .*\\(${whatifs.length} what-if sessions below\\)$`, 'm'));
    expect(text).toMatch(
      new RegExp(
        `^ {2}└ ${DEMO_ID}\\.whatif-${call.seq}-\\d+ .*\\(what-if of ${DEMO_ID} turn ${call.turn} step 1 \\(#${call.seq}\\): restore all\\)$`,
        'm',
      ),
    );
  });

  it('asks a call with a surface its caller builds (as a probe will), by the seq of its model/request', async () => {
    const call = callAfter(demo, demo.compactions[0]?.seq as number);
    const sent = demo.upstream.requests.length;
    const store = await openSqliteStore(join(demo.workspace.cwd, '.shadowlog', 'shadowlog.db'));
    try {
      const model = createOpenAIChatModel({
        model: 'demo-script',
        baseUrl: `${demo.upstream.baseUrl}/v1`,
        contextWindow: 40_000,
        defaultMaxOutputTokens: 512,
      });
      const question = 'Which city ordered the most items?';
      const report = await askWhatIf(
        store,
        DEMO_ID,
        { requestSeq: call.seq },
        {
          label: { probe: question },
          // The recorded surface, and a question of the caller's own after it.
          surface: (_audit, audited) => [
            ...audited.nodes.map((node) => ({ copyOf: node.event })),
            { type: 'user/message' as const, data: { content: [{ type: 'text', text: question }] }, standsFor: [] },
          ],
        },
        { registry: createCliRegistry(), resolveRenderer: rendererFor, target: () => ({ model, window: 40_000 }), samples: 0, maxCalls: 1 },
      );
      const sentOne = report.calls[0]?.counterfactual[0];
      expect(demo.upstream.requests.length).toBe(sent + 1);
      expect(report.calls[0]?.question).toEqual({ probe: question });
      expect(sentOne?.answer.text).toMatch(/^Kraków, with 24 items among the orders I can see/);
      const replayed = JSON.parse((await run(['replay', sentOne?.sessionId as string, '--turn', '1', '--json'])).stdout) as {
        verified: boolean;
      };
      expect(replayed.verified).toBe(true);
      expect((await run(['show', sentOne?.sessionId as string, '--record'])).stdout).toMatch(/^#\d+ user {2}\[made by the what-if\]$/m);
    } finally {
      await store.close();
    }
  });

  it('renders the command that asks a call again with the originals', async () => {
    expect(whatifCommandLine('demo-1', { turn: 5, step: 1 })).toBe('shadowlog whatif demo-1 --turn 5 --step 1 --restore all');
    expect(
      whatifCommandLine(
        'demo-1',
        { turn: 9, step: 2 },
        { restore: ['4b7aadbf', '39'], store: 'sqlite:/tmp/my store.db', program: 'npx shadowlog' },
      ),
    ).toBe("npx shadowlog --store 'sqlite:/tmp/my store.db' whatif demo-1 --turn 9 --step 2 --restore 4b7aadbf 39");
  });
});
