// `tune --probe` on the demo session, against a fake OpenAI-compatible server on 127.0.0.1 that
// answers each probe from what it is sent: a policy that keeps what a probe asks about scores
// higher than one that cut it; the budget is printed before anything is sent and the cap holds,
// spread over the policies; every probe and judge call is recorded in a probe session that
// replays to the digest of the bytes the server received; bad input is one typed line, nothing
// sent, nothing written; the report's probes survive the schema.

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogEvent } from '../../src/log/index.js';
import { parseTuneReport } from '../../src/tune/index.js';
import { matchScore, parseVerdict, probeQuestions } from '../../src/tune/probe/index.js';
import type { SurfaceEntry } from '../../src/whatif/index.js';
import { createCliWorkspace } from '../support/cli.js';
import type { FakeProviderServer } from '../support/fake-provider-server.js';
import { probeAnswer, startProbeUpstream } from '../support/probe-upstream.js';

const DEMO = 'demo-probe';
const sha256 = (text: string) => createHash('sha256').update(Buffer.from(text, 'utf8')).digest('hex');

interface Result {
  sessionId: string;
  policy: string;
  requestSeq: number;
  kind: string;
  expected: { items: string[] } | { text: string };
  scoring: string;
  probeSession: string;
  probeDigest: string;
  judgeSession: string | null;
  judgeDigest: string | null;
  score: number | null;
  unscored: string | null;
  calls: number;
}
interface Report {
  policies: Array<{
    policy: string;
    retention: { share: number };
    compactions: number;
    probe?: { score: number | null; probes: number; calls: number; unscored: number } | null;
  }>;
  probe: {
    generated: number;
    skipped: number;
    calls: number;
    maxProbeCalls: number;
    estimate: { probeCalls: number; judgeCalls: number };
    results: Result[];
  };
}

const GRID = ['--grid', 'thresholdRatio=0.5', '--grid', 'headroomTokens=0', '--grid', 'retainRatio=0.05,0.5', '--baselines', 'claude-code'];

describe('tune --probe', () => {
  const workspace = createCliWorkspace();
  let upstream: FakeProviderServer;
  let ask: string[];
  const run = (args: string[]) => workspace.run(args);
  const snapshot = async () => (await run(['sessions', '--json'])).stdout;

  beforeAll(async () => {
    const demo = await run(['demo', '--json', '--session', DEMO]);
    if (demo.code !== 0) throw new Error(demo.stderr);
    upstream = await startProbeUpstream();
    ask = ['--probe', '--provider', 'openai', '--model', 'demo-script', '--base-url', `${upstream.baseUrl}/v1`];
  }, 60_000);
  afterAll(async () => {
    await upstream.close();
    workspace.cleanup();
  });

  it('scores a policy that kept what a probe asks about above one that cut it, from what the model was sent', async () => {
    const sent = upstream.requests.length;
    const result = await run(['tune', DEMO, ...GRID, ...ask, '--max-probe-calls', '100', '--json']);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as Report;
    const byName = (name: string) => report.policies.find((policy) => policy.policy.includes(name));
    const wide = byName('retainRatio=0.5');
    const narrow = byName('retainRatio=0.05');
    // The model-free retention cannot tell them apart; the probes can.
    expect(wide?.retention.share).toBe(narrow?.retention.share);
    expect(wide?.probe?.score).toBeGreaterThan(narrow?.probe?.score as number);
    // At the same point, the same question: the wider tail kept the answer the record expects, and the server saw it.
    const bodies = new Map(upstream.requests.slice(sent).map((request) => [sha256(request.body), request.body]));
    const pairs = report.probe.results.filter((probe) => probe.policy === wide?.policy && probe.kind === 'continuation');
    const better = pairs.find((probe) =>
      report.probe.results.some(
        (other) =>
          other.policy === narrow?.policy &&
          other.kind === 'continuation' &&
          other.requestSeq === probe.requestSeq &&
          (probe.score as number) > (other.score as number),
      ),
    );
    expect(better).toBeDefined();
    const worse = report.probe.results.find(
      (other) => other.policy === narrow?.policy && other.kind === 'continuation' && other.requestSeq === better?.requestSeq,
    );
    // The wider tail sent a tool result the narrower one cut, and the answer the server computed from it is the record's.
    const toolResults = (probe: Result | undefined) =>
      (JSON.parse(bodies.get(probe?.probeDigest as string) as string) as { messages: Array<{ role: string; content: string }> }).messages
        .filter((message) => message.role === 'tool')
        .map((message) => message.content);
    const cut = toolResults(better).filter((content) => !toolResults(worse).includes(content));
    expect(cut.length).toBeGreaterThan(0);
    expect(better?.score).toBe(1);
  }, 120_000);

  it('prints the budget before sending, holds the cap, spreads the probes over the policies, and records every call', async () => {
    const sent = upstream.requests.length;
    const before = (await run(['sessions', '--json'])).stdout;
    const result = await run(['tune', DEMO, ...GRID, ...ask, '--max-probe-calls', '7', '--json']);
    expect(result.code).toBe(0);
    const stderr = result.stderr.replace(/\r[^\n]*/g, '');
    expect(stderr).toMatch(
      /^probes: \d+ probes generated at \d+ of \d+ compaction points; asking \d+ probes of \d+ policies of openai\/demo-script: \d+ calls \(\d+ probe, \d+ judge\) within --max-probe-calls 7$/m,
    );
    expect(stderr).toMatch(/^estimate: ~[\d,]+ input tokens, at most [\d,]+ output tokens, unpriced/m);
    expect(stderr).toMatch(/^skipped: \d+ probes, \d+ by --max-probe-calls 7 \(spread over the policies evenly\)/m);
    const report = JSON.parse(result.stdout) as Report;
    const run_ = report.probe;
    expect(run_.calls).toBeLessThanOrEqual(7);
    expect(run_.calls).toBe(run_.estimate.probeCalls + run_.estimate.judgeCalls);
    expect(upstream.requests.length - sent).toBe(run_.calls);
    expect(run_.skipped).toBe(run_.generated - run_.results.length);
    const counts = report.policies.filter((policy) => policy.probe != null).map((policy) => policy.probe?.probes as number);
    // Every policy that compacted the demo is probed (the defaults, both grid points, claude-code), none left out by the cap.
    expect(counts.length).toBe(report.policies.filter((policy) => policy.compactions > 0).length);
    expect(counts.length).toBeGreaterThanOrEqual(3);
    expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1);
    // Every call is in a probe session that replays to the digest of the bytes the server received.
    const digests = new Set(upstream.requests.slice(sent).map((request) => sha256(request.body)));
    const recorded = run_.results.flatMap((probe) => [
      [probe.probeSession, probe.probeDigest],
      ...(probe.judgeSession === null ? [] : [[probe.judgeSession, probe.judgeDigest as string]]),
    ]);
    expect(recorded.length).toBe(run_.calls);
    for (const [session, digest] of recorded) {
      expect(digests.has(digest as string)).toBe(true);
      const replayed = JSON.parse((await run(['replay', session as string, '--turn', '1', '--json'])).stdout) as {
        verified: boolean;
        requestDigest: string;
      };
      expect(replayed).toMatchObject({ verified: true, requestDigest: digest });
      const events = (
        JSON.parse((await run(['show', session as string, '--record', '--json'])).stdout) as {
          events: Array<{ data: Record<string, unknown> }>;
        }
      ).events;
      expect(events[0]?.data.whatif).toMatchObject({ sessionId: DEMO });
    }
    // The audited session got nothing.
    const demoOf = (text: string) => {
      const found = (JSON.parse(text) as Array<{ id: string; events: number; updatedAt: string }>).find((session) => session.id === DEMO);
      return { events: found?.events, updatedAt: found?.updatedAt };
    };
    expect(demoOf((await run(['sessions', '--json'])).stdout)).toEqual(demoOf(before));
    expect((await run(['verify', DEMO])).code).toBe(0);
  }, 180_000);

  it('refuses a cap of 0 or below, a missing cap and a provider it has no adapter for: one typed line, nothing sent, nothing written', async () => {
    const sent = upstream.requests.length;
    const before = await snapshot();
    for (const [args, pattern] of [
      [
        ['--max-probe-calls', '0'],
        /^shadowlog: .*--max-probe-calls must allow at least one call \(a whole number from 1\), found "0"; nothing was sent, nothing was written\n$/,
      ],
      [['--max-probe-calls=-3'], /^shadowlog: .*--max-probe-calls must allow at least one call .*found "-3"/],
      [[], /^shadowlog: .*--probe needs --max-probe-calls N/],
    ] as const) {
      const result = await run(['tune', DEMO, ...ask, ...args]);
      expect(result.code).not.toBe(0);
      expect(result.stderr).toMatch(pattern);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
    }
    const unknown = await run(['tune', DEMO, '--probe', '--provider', 'nope', '--model', 'm', '--max-probe-calls', '3']);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/WHATIF_NO_ADAPTER.*shadowlog has no adapter for provider nope.*nothing was sent\n$/);
    expect(unknown.stderr.trim().split('\n')).toHaveLength(1);
    const unknownModel = await run([
      'tune',
      DEMO,
      '--probe',
      '--provider',
      'openai',
      '--model',
      'no-such-model',
      '--base-url',
      `${upstream.baseUrl}/v1`,
      '--max-probe-calls',
      '3',
    ]);
    expect(unknownModel.code).not.toBe(0);
    expect(unknownModel.stderr).toMatch(
      /^shadowlog: USAGE: the limits table does not know model no-such-model, so its window is unknown: give it with --probe-window W; nothing was sent\n$/,
    );
    const stray = await run(['tune', DEMO, '--max-probe-calls', '3']);
    expect(stray.stderr).toMatch(/^shadowlog: .*--max-probe-calls is a flag of --probe; give --probe with it\n$/);
    expect(upstream.requests.length).toBe(sent);
    expect(await snapshot()).toBe(before);
  }, 120_000);

  it('records a verdict that does not parse and leaves its probe unscored; the report round-trips through the schema', async () => {
    const prose = await startProbeUpstream({ judge: 'prose' });
    try {
      const out = join(workspace.cwd, 'probe-report');
      const storedBefore = (await run(['sessions', '--json'])).stdout;
      const result = await run([
        'tune',
        DEMO,
        '--baselines',
        'claude-code',
        '--probe',
        '--provider',
        'openai',
        '--model',
        'demo-script',
        '--base-url',
        `${prose.baseUrl}/v1`,
        '--max-probe-calls',
        '20',
        '--probe-store',
        `sqlite:${join(workspace.cwd, 'probes.db')}`,
        '--out',
        out,
        '--json',
      ]);
      expect(result.code).toBe(0);
      const report = JSON.parse(result.stdout) as Report;
      const judged = report.probe.results.filter((probe) => probe.scoring === 'judge');
      expect(judged.length).toBeGreaterThan(0);
      for (const probe of judged) {
        expect(probe.score).toBeNull();
        expect(probe.unscored).toMatch(/^the verdict is not JSON/);
        expect(probe.calls).toBe(2);
      }
      const claude = report.policies.find((policy) => policy.policy === 'claude-code');
      expect(claude?.probe?.unscored).toBe(judged.filter((probe) => probe.policy === 'claude-code').length);
      expect(claude?.probe?.unscored).toBeGreaterThan(0);
      // Recorded in --probe-store, not in the store.
      expect((await run(['sessions', '--json'])).stdout).toBe(storedBefore);
      expect(
        (
          await run([
            '--store',
            `sqlite:${join(workspace.cwd, 'probes.db')}`,
            'replay',
            judged[0]?.judgeSession as string,
            '--turn',
            '1',
            '--json',
          ])
        ).code,
      ).toBe(0);
      const written = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as unknown;
      const parsed = parseTuneReport(written, 'report.json');
      expect(parsed.probe).toEqual((written as Report).probe);
      expect(parsed.policies.map((policy) => policy.probe)).toEqual((written as Report).policies.map((policy) => policy.probe));
    } finally {
      await prose.close();
    }
  }, 120_000);
});

describe('probe scoring', () => {
  it('matches expected items as whole tokens, and reads only a verdict that parses', () => {
    expect(matchScore(['src/csv.ts', '4180'], 'I read src/csv.ts; RFC 41800')).toEqual({
      score: 0.5,
      found: ['src/csv.ts'],
      missing: ['4180'],
    });
    expect(parseVerdict('{"score": 0.5, "reason": "half"}')).toEqual({ parsed: true, score: 0.5, reason: 'half' });
    expect(parseVerdict('```json\n{"score": 1, "reason": "all"}\n```')).toEqual({ parsed: true, score: 1, reason: 'all' });
    expect(parseVerdict('{"score": 1.5, "reason": "too much"}').parsed).toBe(false);
    expect(parseVerdict('{"score": "0.5", "reason": "text"}').parsed).toBe(false);
    expect(parseVerdict('It is right.').parsed).toBe(false);
  });
});

describe('a recall probe', () => {
  const event = (seq: number, type: string, data: Record<string, unknown>) =>
    ({ seq, type, data, surfaceOp: 'append', time: '2026-01-01T00:00:00.000Z' }) as unknown as LogEvent;
  const said = event(3, 'user/message', { content: [{ type: 'text', text: 'Deploy it on port 48213 of the staging host, please.' }] });
  const later = event(9, 'user/message', { content: [{ type: 'text', text: 'Now run the whole suite.' }] });
  const summaryOf = (text: string): SurfaceEntry => ({
    type: 'user/message',
    data: { content: [{ type: 'text', text: `<compacted-summary>\n${text}\n</compacted-summary>` }] },
    standsFor: [3],
  });
  const ask = (entries: readonly SurfaceEntry[], question: string) => {
    const messages = [
      ...entries.map((entry) => ({ role: 'user', content: 'copyOf' in entry ? textOfEvent(entry.copyOf) : textOfData(entry.data) })),
      { role: 'user', content: question },
    ];
    return probeAnswer({ method: 'POST', path: '/v1/chat/completions', headers: {}, body: JSON.stringify({ model: 'm', messages }) }, {});
  };
  const textOfData = (data: Record<string, unknown>) =>
    ((data.content ?? []) as Array<{ text: string }>).map((block) => block.text).join('');
  const textOfEvent = (cut: LogEvent) => textOfData(cut.data as Record<string, unknown>);

  it('asks for a fact the policy cut, and scores a surface whose summary kept it above one whose summary did not', () => {
    const kept = [summaryOf('## Requests\n- [done] "Deploy it on port 48213 of the staging host, please."'), { copyOf: later }];
    const lost = [summaryOf('- The user asked for a deployment.'), { copyOf: later }];
    const record = { originals: [said, later], answer: undefined };
    const [keptQuestion] = probeQuestions(record, kept);
    const [lostQuestion] = probeQuestions(record, lost);
    // The same question for both: the message that stated it is cut from each, and no verbatim message holds the fact.
    expect(keptQuestion).toEqual(lostQuestion);
    expect(keptQuestion).toMatchObject({ kind: 'recall', expected: { items: ['48213'] }, sourceSeq: 3 });
    expect(keptQuestion?.question).toContain('Deploy it on port ____ of the staging host, please.');
    expect(keptQuestion?.question).not.toContain('48213');
    const items = (keptQuestion?.expected as { items: string[] } | undefined)?.items ?? [];
    expect(matchScore(items, ask(kept, keptQuestion?.question as string)).score).toBe(1);
    expect(matchScore(items, ask(lost, lostQuestion?.question as string)).score).toBe(0);
    // A fact still on the surface verbatim is not asked.
    expect(probeQuestions(record, [{ copyOf: said }, { copyOf: later }]).filter((question) => question.kind === 'recall')).toEqual([]);
  });
});
