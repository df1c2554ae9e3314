// `shadowlog whatif <id> --turn N --restore …` on the demo session, against the demo agent behind
// a fake OpenAI-compatible server on 127.0.0.1: the request holds the originals a compaction and
// a prune shadowed, the agent answers from them differently, the call is recorded in a what-if
// session that replays to the digest of the bytes the server received, and the demo session is
// left as it was. Bad input is refused with one typed line, nothing sent, nothing written.

import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callAfter, DEMO_ID, type DemoWhatIf, startDemoWhatIf } from './demo-whatif.js';

interface Sent {
  sessionId: string;
  requestSeq: number;
  digest: string;
  answer: { text: string; toolCalls: unknown[]; stopReason: string | null; usage: unknown; error: unknown };
}
interface CallReport {
  seq: number;
  turn: number;
  step: number;
  changed: boolean;
  recordedAnswer: { text: string };
  counterfactual: Sent[];
  recordedSamples: Sent[];
  counts: { recorded: Array<{ key: string; count: number }>; counterfactual: Array<{ key: string; count: number }> } | null;
  restored: Array<{ seq: number; kind: string; compactionId: string | null; shadowed: number[] }>;
}

const sha256 = (text: string) => createHash('sha256').update(Buffer.from(text, 'utf8')).digest('hex');

describe('whatif of one call', () => {
  let demo: DemoWhatIf;
  beforeAll(async () => {
    demo = await startDemoWhatIf();
  }, 60_000);
  afterAll(() => demo.close());

  const run = (args: string[]) => demo.workspace.run(args);
  const textOf = (seq: number) =>
    ((demo.record.find((event) => event.seq === seq)?.data.content ?? []) as Array<{ text?: string }>)
      .map((block) => block.text ?? '')
      .join('');

  it('asks the first call after a compaction again with the originals, not their summary, and records it in a what-if session', async () => {
    const [first] = demo.compactions;
    const call = callAfter(demo, first?.seq as number);
    const demoBefore = await run(['show', DEMO_ID, '--record', '--json']);
    const sent = demo.upstream.requests.length;

    const result = await run([
      'whatif',
      DEMO_ID,
      '--turn',
      String(call.turn),
      '--step',
      String(call.step),
      '--restore',
      'all',
      ...demo.askFake,
      '--json',
    ]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as { calls: CallReport[]; changed: number };
    const asked = report.calls[0] as CallReport;
    const what = asked.counterfactual[0] as Sent;

    // One request reached the server: it holds the originals the compaction and the prune shadowed, and neither replacement.
    expect(demo.upstream.requests.length).toBe(sent + 1);
    const body = demo.upstream.requests.at(-1)?.body as string;
    const summary = demo.record.find(
      (event) => event.type === 'user/message' && (event.sourceEventSeqs ?? []).includes(first?.seq as number),
    );
    const prune = demo.record.find((event) => event.type === 'compaction/prune');
    const original = (prune?.data.shadowedSeqs as number[] | undefined)?.[0] as number;
    const messages = (JSON.parse(body) as { messages: Array<{ role: string; content: string }> }).messages;
    expect(body).not.toContain('<compacted-summary>');
    expect(messages.some((message) => message.role === 'tool' && message.content === textOf(original))).toBe(true);
    expect(textOf(original).length).toBeGreaterThan(30_000);
    for (const shadowed of summary?.sourceEventSeqs ?? []) {
      const text = textOf(shadowed);
      if (text !== '') expect(body).toContain(JSON.stringify(text).slice(1, -1).slice(0, 200));
    }
    expect(asked.restored.map((item) => item.kind).sort()).toEqual(['prune', 'summary']);

    // The agent answers from what it sees: with the whole file back it names another city, and not as a partial count.
    expect(asked.recordedAnswer.text).toContain('among the orders I can see');
    expect(what.answer.text).not.toContain('among the orders I can see');
    expect(what.answer.text).toMatch(/^\S+, with \d+ items\.$/);
    expect(asked.changed).toBe(true);
    expect(report.changed).toBe(1);

    // Recorded: the digest is that of the bytes the server received, and replay proves it.
    expect(what.digest).toBe(sha256(body));
    const replayed = JSON.parse((await run(['replay', what.sessionId, '--turn', '1', '--json'])).stdout) as {
      verified: boolean;
      requestDigest: string;
    };
    expect(replayed).toMatchObject({ verified: true, requestDigest: sha256(body) });
    expect((await run(['verify', what.sessionId])).code).toBe(0);
    const record = JSON.parse((await run(['show', what.sessionId, '--record', '--json'])).stdout) as {
      events: Array<{ seq: number; type: string; data: Record<string, unknown> }>;
    };
    expect(record.events[0]?.data.whatif).toMatchObject({
      sessionId: DEMO_ID,
      requestSeq: call.seq,
      turn: call.turn,
      step: call.step,
      question: { restore: 'all' },
      variant: 'counterfactual',
      sample: 1,
    });
    const copied = record.events.flatMap((event) => {
      const copyOf = event.data.copyOf as { sessionId: string; seq: number } | undefined;
      return copyOf === undefined ? [] : [copyOf];
    });
    expect(copied.every((copy) => copy.sessionId === DEMO_ID)).toBe(true);
    expect(copied.map((copy) => copy.seq)).toContain(original);
    expect(copied.map((copy) => copy.seq)).not.toContain(summary?.seq);
    const request = record.events.find((event) => event.type === 'model/request');
    expect(request?.data.requestDigest).toBe(sha256(body));
    expect(record.events.find((event) => event.type === 'assistant/message' && event.data.copyOf === undefined)?.data.finishReason).toBe(
      'stop',
    );

    // The audited session got nothing.
    expect((await run(['show', DEMO_ID, '--record', '--json'])).stdout).toBe(demoBefore.stdout);
    expect((await run(['verify', DEMO_ID])).code).toBe(0);
  });

  it('prints both answers side by side, with a diff and where the call is recorded', async () => {
    const call = callAfter(demo, demo.compactions[0]?.seq as number);
    const result = await run(['whatif', DEMO_ID, '--turn', String(call.turn), '--restore', 'all', ...demo.askFake]);
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines[0]).toMatch(
      new RegExp(
        `^turn ${call.turn} step 1 \\(event #${call.seq}\\), asked again of openai/demo-script with compaction \\S+ \\(#\\d+\\), prune #\\d+ undone \\(\\d+ shadowed nodes restored in their places\\)$`,
      ),
    );
    expect(result.stdout).toMatch(/^ {2}text {8}Kraków, with 24 items among the orders I can see \(the f… {2}\S+, with \d+ items\.$/m);
    expect(result.stdout).toMatch(/^ {2}stop reason stop \(the log keeps none; read from the answer\) +stop$/m);
    expect(result.stdout).toMatch(/^ {2}tokens {6}in [\d,]+ · out \d+ +in [\d,]+ · out \d+$/m);
    expect(result.stdout).toContain('the answer changed (- recorded, + what-if):');
    expect(result.stdout).toMatch(/^ {2}- Kraków, with 24 items/m);
    expect(result.stdout).toMatch(/^ {2}\+ \S+, with \d+ items\.$/m);
    expect(result.stdout).toMatch(
      /recorded in what-if session demo-whatif\.whatif-\d+-\d+ \(request #\d+, digest [0-9a-f]{16}…\): `shadowlog replay demo-whatif\.whatif-\d+-\d+ --turn 1` proves it/,
    );
    expect(result.stdout).not.toMatch(/NaN|undefined|\?/);
  });

  it('with --samples K sends the recorded request and the counterfactual K times each, and counts each answer', async () => {
    const call = callAfter(demo, demo.compactions[0]?.seq as number);
    const sent = demo.upstream.requests.length;
    const result = await run([
      'whatif',
      DEMO_ID,
      '--turn',
      String(call.turn),
      '--restore',
      'all',
      '--samples',
      '3',
      ...demo.askFake,
      '--json',
    ]);
    expect(result.code).toBe(0);
    const asked = (JSON.parse(result.stdout) as { calls: CallReport[] }).calls[0] as CallReport;
    expect(demo.upstream.requests.length).toBe(sent + 6);
    expect(asked.counterfactual).toHaveLength(3);
    expect(asked.recordedSamples).toHaveLength(3);
    expect(asked.counts?.recorded).toEqual([{ key: `text: ${asked.recordedAnswer.text}`, count: 3 }]);
    expect(asked.counts?.counterfactual).toEqual([{ key: `text: ${asked.counterfactual[0]?.answer.text}`, count: 3 }]);
    expect(asked.changed).toBe(true);
    // Every one of the six requests is recorded, in a session of its own, and replays to its digest.
    const bodies = demo.upstream.requests.slice(sent).map((request) => sha256(request.body));
    for (const sample of [...asked.counterfactual, ...asked.recordedSamples]) {
      expect(bodies).toContain(sample.digest);
      const replayed = JSON.parse((await run(['replay', sample.sessionId, '--turn', '1', '--json'])).stdout) as {
        verified: boolean;
        requestDigest: string;
      };
      expect(replayed).toMatchObject({ verified: true, requestDigest: sample.digest });
    }
    // The recorded request sent again holds the summary, the counterfactual does not.
    const recordedBody = demo.upstream.requests.find((request) => sha256(request.body) === asked.recordedSamples[0]?.digest)?.body;
    expect(recordedBody).toContain('<compacted-summary>');
    const text = (await run(['whatif', DEMO_ID, '--turn', String(call.turn), '--restore', 'all', '--samples', '2', ...demo.askFake]))
      .stdout;
    expect(text).toContain(
      'samples: the recorded request and the what-if, each sent 2 times; each answer by its tool calls, else its text:',
    );
    expect(text).toMatch(/^ {4}2× text: Kraków, with 24 items/m);
    expect(text).toContain('the most frequent answer differs between the two: a difference beyond the sampling noise seen here');
  });

  it('restores through nested summaries, or only the compactions named', async () => {
    const [first, second] = demo.compactions;
    const call = callAfter(demo, second?.seq as number);
    const sent = demo.upstream.requests.length;
    expect(
      (await run(['whatif', DEMO_ID, '--turn', String(call.turn), '--step', String(call.step), '--restore', 'all', ...demo.askFake])).code,
    ).toBe(0);
    const all = demo.upstream.requests[sent]?.body as string;
    expect(all).not.toContain('<compacted-summary>');
    expect(all).toContain('"content":"Give me a short overview of this project."');
    // The second compaction alone: the first one's summary comes back in its place, as it stood.
    const outer = await run([
      'whatif',
      DEMO_ID,
      '--turn',
      String(call.turn),
      '--step',
      String(call.step),
      '--restore',
      String(second?.id).slice(0, 8),
      ...demo.askFake,
    ]);
    expect(outer.stderr).toBe('');
    const partial = demo.upstream.requests[sent + 1]?.body as string;
    expect(partial.match(/<compacted-summary>/g)).toHaveLength(1);
    expect(partial).not.toContain('"content":"Give me a short overview of this project."');
    // Both, by their ids: the same request as --restore all, but the prune (not named) stays.
    await run([
      'whatif',
      DEMO_ID,
      '--turn',
      String(call.turn),
      '--step',
      String(call.step),
      '--restore',
      second?.id as string,
      first?.id as string,
      ...demo.askFake,
    ]);
    const both = demo.upstream.requests[sent + 2]?.body as string;
    expect(both).not.toContain('<compacted-summary>');
    expect(both.length).toBeLessThan(all.length);
  });

  describe('refuses bad input with one typed line, sending and writing nothing', () => {
    const refused = async (args: string[], code: string, message: RegExp) => {
      const before = await demo.snapshot();
      const sent = demo.upstream.requests.length;
      const result = await run(args);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(new RegExp(`^shadowlog: ${code}: [^\\n]+\\n$`));
      expect(result.stderr).toMatch(message);
      expect(result.code).not.toBe(0);
      expect(demo.upstream.requests.length).toBe(sent);
      expect(await demo.snapshot()).toBe(before);
    };

    it('a call the session does not have', async () => {
      await refused(
        ['whatif', DEMO_ID, '--turn', '99', '--restore', 'all', ...demo.askFake],
        'NO_SUCH_CALL',
        /no model call at turn 99, step 1; its model calls are in turns 1 to 10/,
      );
    });

    it('a compaction that is not on the call’s surface', async () => {
      const [first, second] = demo.compactions;
      const early = demo.calls[0] as { turn: number };
      await refused(
        ['whatif', DEMO_ID, '--turn', String(early.turn), '--restore', first?.id as string, ...demo.askFake],
        'WHATIF_RESTORE_TARGET',
        /is not on the surface of turn 1 step 1 .*nothing on it was compacted or pruned/,
      );
      const late = callAfter(demo, second?.seq as number);
      await refused(
        ['whatif', DEMO_ID, '--turn', String(late.turn), '--step', String(late.step), '--restore', first?.id as string, ...demo.askFake],
        'WHATIF_RESTORE_TARGET',
        new RegExp(
          `compaction ${first?.id} \\(summary #\\d+ of \\d+ nodes\\) is not on the surface of turn ${late.turn} step ${late.step}: compaction ${second?.id} \\(summary #\\d+ of \\d+ nodes\\) stands for it there; restore that too \\(--restore ${second?.id} ${first?.id}\\), or --restore all`,
        ),
      );
      await refused(
        ['whatif', DEMO_ID, '--turn', String(late.turn), '--step', String(late.step), '--restore', 'no-such-id', ...demo.askFake],
        'WHATIF_RESTORE_TARGET',
        /"no-such-id" is not a compaction or replacement on this call's surface; its surface holds compaction/,
      );
    });

    it('a provider shadowlog has no adapter for', async () => {
      const call = callAfter(demo, demo.compactions[0]?.seq as number);
      await refused(
        ['whatif', DEMO_ID, '--turn', String(call.turn), '--restore', 'all', '--provider', 'gemini', '--model', 'gemini-2.5-pro'],
        'WHATIF_NO_ADAPTER',
        /no adapter for provider gemini; it speaks openai, openai-responses, anthropic/,
      );
      await refused(
        ['whatif', DEMO_ID, '--turn', String(call.turn), '--restore', 'all', '--provider', 'scripted', '--model', 'scripted'],
        'WHATIF_NO_ADAPTER',
        /scripted\/scripted, a script of the program that ran it/,
      );
    });

    it('a budget of no calls, or fewer than the samples need', async () => {
      const call = callAfter(demo, demo.compactions[0]?.seq as number);
      await refused(
        ['whatif', DEMO_ID, '--turn', String(call.turn), '--restore', 'all', '--max-calls', '0', ...demo.askFake],
        'WHATIF_BUDGET',
        /--max-calls must allow at least one call, found 0; nothing was sent/,
      );
      await refused(
        ['whatif', DEMO_ID, '--turn', String(call.turn), '--restore', 'all', '--samples', '3', '--max-calls', '5', ...demo.askFake],
        'WHATIF_BUDGET',
        /--samples 3 sends 6 requests per call/,
      );
    });

    it('a request over the model’s window, with the numbers and the choices that make it fit', async () => {
      const call = callAfter(demo, demo.compactions[0]?.seq as number);
      const askSmall = demo.askFake.map((arg) => (arg === '40000' ? '4000' : arg));
      await refused(
        ['whatif', DEMO_ID, '--turn', String(call.turn), '--restore', 'all', ...askSmall],
        'WHATIF_OVER_WINDOW',
        /would not fit the window, so nothing was sent: ~[\d,]+ input tokens \(messages and tool definitions, by the script-aware estimate\) \+ 512 reserved for the answer = [\d,]+, [\d,]+ over the 4,000-token window of openai\/demo-script\. To make it fit: give the model's real window with --window \d+ or more, if it takes that many; or restore less: the recorded surface is ~[\d,]+ tokens and ~[\d,]+ more fit; compaction \S+ \(summary #\d+ of \d+ nodes\) adds ~[\d,]+, prune #\d+ \(tool result #\d+\) adds ~[\d,]+ \(each of these fits alone: --restore \S+\); or reserve fewer tokens/,
      );
      // The demo's own scripted model, asked offline, holds the request to the 3,200 tokens it ran in.
      await refused(
        ['whatif', DEMO_ID, '--turn', String(call.turn), '--restore', 'all'],
        'WHATIF_OVER_WINDOW',
        /over the 3,200-token window of scripted\/demo-script/,
      );
    });
  });
});
