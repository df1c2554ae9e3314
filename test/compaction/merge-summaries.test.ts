// Merging an earlier summary's sections with newer messages: what is kept, what newer
// messages supersede, and (a property) that every identifier and path an inner summary kept
// survives an outer merge through the extractive summarizer.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EXTRACTIVE_LABEL, summarizeExtractively } from '../../src/compaction/extractive-summarizer.js';
import { mergeSummaries } from '../../src/compaction/merge-summaries.js';
import { renderSections, replacementText } from '../../src/compaction/render-summary.js';
import { emptySections, type SummarySections } from '../../src/compaction/summary-sections.js';
import type { ToolCall } from '../../src/log/event.js';
import { scriptAwareEstimator } from '../../src/meter/script-aware.js';
import type { ModelMessage } from '../../src/providers/language-model.js';

const chars4 = (text: string): number => Math.ceil(text.length / 4);
const user = (text: string): ModelMessage => ({ role: 'user', content: [{ type: 'text', text }] });
const assistant = (text: string, toolCalls: ToolCall[] = []): ModelMessage => ({
  role: 'assistant',
  content: [{ type: 'text', text }],
  toolCalls,
});
const tool = (callId: string, text: string): ModelMessage => ({ role: 'tool', callId, content: [{ type: 'text', text }], isError: false });

const inner: SummarySections = {
  ...emptySections(),
  requests: [
    { status: 'done', text: 'Give me a short overview of this project.' },
    { status: 'open', text: 'Which test covers the empty field?' },
  ],
  files: [
    { path: 'src/csv.ts', action: 'read' },
    { path: 'README.md', action: 'read' },
  ],
  identifiers: ['parseCsv(text)', 'endField()'],
  decisions: ['Fix: call endField() unconditionally.'],
  errors: [{ error: 'run_command({"command":"npm test"}) failed: 1 failed', fix: null }],
  progress: ['The project has 7 files.'],
  current: { work: 'the open request; last step: search_files({"text":"empty"}) → ok', nextStep: null },
};

/** The earlier summary's node as the surface shows it. */
const summaryNode = (sections: SummarySections): ModelMessage => user(replacementText(renderSections(sections, EXTRACTIVE_LABEL), 12));

describe('mergeSummaries', () => {
  const newer: SummarySections = {
    ...emptySections(),
    requests: [{ status: 'open', text: 'Now fix src/csv.ts.' }],
    files: [
      { path: 'src/csv.ts', action: 'modified' },
      { path: 'test/csv.test.ts', action: 'read' },
    ],
    identifiers: ['parseCsv()', 'endRow()'],
    progress: ['The test at test/csv.test.ts:18 expects [a, b, ""].'],
    current: { work: 'the open request; last step: edit_file({"path":"src/csv.ts"}) → ok', nextStep: 'run the tests' },
  };
  const merged = mergeSummaries(inner, newer, { answersOpenRequest: true, fixes: ['All 12 tests pass now.'] });

  it('keeps the first request first, and marks the open one done when the newer messages answered it', () => {
    expect(merged.requests).toEqual([
      { status: 'done', text: 'Give me a short overview of this project.' },
      { status: 'done', text: 'Which test covers the empty field?' },
      { status: 'open', text: 'Now fix src/csv.ts.' },
    ]);
  });

  it('lets a newer action supersede a weaker one, and keeps the rest in order', () => {
    expect(merged.files).toEqual([
      { path: 'src/csv.ts', action: 'modified' },
      { path: 'README.md', action: 'read' },
      { path: 'test/csv.test.ts', action: 'read' },
    ]);
    expect(merged.identifiers).toEqual(['parseCsv(text)', 'endField()', 'endRow()']);
  });

  it('gives an open error the fix reported later, and takes the newer current work', () => {
    expect(merged.errors).toEqual([{ error: 'run_command({"command":"npm test"}) failed: 1 failed', fix: 'All 12 tests pass now.' }]);
    expect(merged.current).toEqual(newer.current);
    expect(merged.decisions).toEqual(inner.decisions);
    expect(merged.progress).toEqual([...inner.progress, ...(newer.progress ?? [])]);
  });

  it('drops the current work once every request is done, and never turns a read file into a created one', () => {
    const done = mergeSummaries(
      inner,
      { ...emptySections(), files: [{ path: 'README.md', action: 'created' }] },
      { answersOpenRequest: true, fixes: [] },
    );
    expect(done.current).toBeNull();
    expect(done.files).toContainEqual({ path: 'README.md', action: 'modified' });
  });
});

describe('the extractive summarizer merges an earlier summary', () => {
  const newerMessages: ModelMessage[] = [
    assistant('', [{ callId: 's1', name: 'search_files', arguments: { text: 'empty last field', path: 'test' } }]),
    tool('s1', "test/csv.test.ts:18: test('keeps an empty last field', () => {"),
    assistant("The test at test/csv.test.ts:18 (\"keeps an empty last field\") expects parseCsv('a,b,\\n') to give [['a', 'b', '']]."),
    user('Look at data/orders.csv: how many orders have an empty note?'),
    assistant('', [{ callId: 'r1', name: 'read_file', arguments: { path: 'data/orders.csv' } }]),
    tool('r1', 'order_id,city,note\n'.repeat(300)),
    assistant('26 of 44 orders have an empty note.'),
  ];

  for (const [name, earlierSummaries] of [
    ['given by the transaction', [{ messageIndex: 0, sections: inner }]],
    ['recognised by its text', undefined],
  ] as const) {
    it(`merges its sections (${name}) and never re-reads its text as sentences`, () => {
      const summary = summarizeExtractively([summaryNode(inner), ...newerMessages], {
        maxTokens: 4_000,
        countTokens: chars4,
        ...(earlierSummaries === undefined ? {} : { earlierSummaries }),
      });
      if (summary === undefined) expect.unreachable('expected a summary');
      expect(summary.sections.requests.map((request) => request.status)).toEqual(['done', 'done', 'done']);
      expect(summary.sections.requests[0]?.text).toBe('Give me a short overview of this project.');
      expect(summary.sections.progress).toEqual([
        'The project has 7 files.',
        "The test at test/csv.test.ts:18 (\"keeps an empty last field\") expects parseCsv('a,b,\\n') to give [['a', 'b', '']].",
        '26 of 44 orders have an empty note.',
      ]);
      expect(summary.text.match(/^## Requests$/gm)).toHaveLength(1);
      expect(summary.text).not.toContain('compacted-summary');
      expect(summary.text).not.toContain('Earlier context was compacted');
      expect(summary.sections.earlier).toEqual([]);
    });
  }

  it('keeps an earlier summary without sections as one verbatim block, never as sentences', () => {
    const old = user(
      'Earlier context was compacted: 9 earlier messages were replaced by this summary.\n<compacted-summary>\nTask and latest request:\n- latest request: Fix the parser. It drops fields.\nFiles and identifiers:\n- files: src/csv.ts\n</compacted-summary>',
    );
    const summary = summarizeExtractively([old, ...newerMessages], {
      maxTokens: 4_000,
      countTokens: chars4,
      earlierSummaries: [{ messageIndex: 0, sections: undefined }],
    });
    expect(summary?.sections.earlier).toEqual([
      'Task and latest request:\n- latest request: Fix the parser. It drops fields.\nFiles and identifiers:\n- files: src/csv.ts',
    ]);
    expect(summary?.sections.requests).toEqual([{ status: 'done', text: 'Look at data/orders.csv: how many orders have an empty note?' }]);
    expect(summary?.text).toContain('## Earlier summary\n> Task and latest request:\n> - latest request: Fix the parser. It drops fields.');
  });
});

describe('the ceiling', () => {
  it('drops an earlier summary’s lines only to fit maxSummaryTokens, and says how many went', () => {
    const big: SummarySections = {
      ...inner,
      progress: Array.from({ length: 40 }, (_, index) => `Finding ${index}: the parser handled case ${index} in ${index * 3} ms.`),
    };
    const messages = [summaryNode(big), ...Array.from({ length: 3 }, (_, index) => tool(`t${index}`, 'routine output line\n'.repeat(200)))];
    const roomy = summarizeExtractively(messages, {
      maxTokens: 8_000,
      countTokens: chars4,
      targetTokens: () => 50,
      earlierSummaries: [{ messageIndex: 0, sections: big }],
    });
    expect(roomy?.sections.progress).toEqual(big.progress);
    const tight = summarizeExtractively(messages, {
      maxTokens: 400,
      countTokens: chars4,
      targetTokens: () => 50,
      earlierSummaries: [{ messageIndex: 0, sections: big }],
    });
    if (tight === undefined) expect.unreachable('expected a summary');
    expect(tight.outputTokens).toBeLessThanOrEqual(400);
    expect(tight.sections.requests).toEqual(big.requests);
    const dropped = Number(
      /^(\d+) lines of earlier summaries dropped to fit maxSummaryTokens$/.exec(tight.sections.notes.at(-1) ?? '')?.[1],
    );
    expect(dropped).toBeGreaterThan(0);
    expect(tight.sections.progress.length).toBeLessThan(big.progress.length);
  });

  for (const [name, countTokens] of [
    ['chars4', chars4],
    ['script-aware', (text: string) => scriptAwareEstimator.countText(text)],
  ] as const) {
    it(`still writes a summary when an earlier one’s requests alone exceed maxSummaryTokens: the first and the newest stay, a note counts the rest (${name})`, () => {
      // A long session: every request of hundreds of turns, merged summary after summary.
      const many: SummarySections = {
        ...inner,
        requests: Array.from({ length: 600 }, (_, index) => ({
          status: 'done' as const,
          text: `Turn ${index + 1}: look at module ${index}.`,
        })),
      };
      const messages = [summaryNode(many), user('Turn 601: and now the parser.'), tool('t1', 'routine output line\n'.repeat(200))];
      const summary = summarizeExtractively(messages, {
        maxTokens: 400,
        countTokens,
        targetTokens: () => 50,
        earlierSummaries: [{ messageIndex: 0, sections: many }],
      });
      if (summary === undefined) expect.unreachable('expected a summary');
      expect(summary.outputTokens).toBeLessThanOrEqual(400);
      const requests = summary.sections.requests;
      expect(requests.length).toBeGreaterThan(2);
      expect(requests[0]?.text).toMatch(/^Turn 1\b/);
      expect(requests.at(-1)?.text).toMatch(/the parser\.$/);
      const dropped = Number(
        /^(\d+) lines of earlier summaries dropped to fit maxSummaryTokens$/.exec(summary.sections.notes.at(-1) ?? '')?.[1],
      );
      expect(dropped).toBeGreaterThanOrEqual(601 - requests.length);
    });
  }

  it('keeps a request said twice as two lines', () => {
    const again = mergeSummaries(inner, {
      ...emptySections(),
      requests: [{ status: 'open', text: 'Give me a short overview of this project.' }],
    });
    expect(again.requests.map((request) => request.text)).toEqual([
      'Give me a short overview of this project.',
      'Which test covers the empty field?',
      'Give me a short overview of this project.',
    ]);
  });
});

const identifier = fc.stringMatching(/^[a-z][a-z0-9]{1,6}[A-Z][a-z0-9]{1,6}(\(\))?$/);
const path = fc.stringMatching(/^(src|test|lib)\/[a-z]{1,8}\/[a-z]{1,8}\.(ts|md|json)$/);
const sentence = fc.stringMatching(/^[A-Z][a-z]{2,8}( [a-z]{2,8}){2,8}\.$/);

const innerSections = fc.record({
  identifiers: fc.uniqueArray(identifier, { maxLength: 12, selector: (name) => name.replace(/\(\)$/, '') }),
  files: fc.uniqueArray(fc.record({ path, action: fc.constantFrom('mentioned', 'read', 'modified', 'created' as const) }), {
    maxLength: 10,
    selector: (file) => file.path,
  }),
  requests: fc.array(sentence, { minLength: 1, maxLength: 4 }),
  progress: fc.array(sentence, { maxLength: 4 }),
});

/** Newer messages that name identifiers and paths of their own, and some of the inner ones (a file read again, then written). */
const newerRun = fc.array(
  fc.oneof(
    fc.record({ kind: fc.constant('ask' as const), text: sentence, name: identifier }),
    fc.record({ kind: fc.constant('answer' as const), text: sentence, name: identifier, file: path }),
    fc.record({ kind: fc.constant('read' as const), file: path }),
    fc.record({ kind: fc.constant('write' as const), file: path }),
  ),
  { minLength: 1, maxLength: 8 },
);

describe('merging, as a property', () => {
  it('keeps every identifier and path of the inner summary through an outer merge (an action may only grow stronger)', () => {
    fc.assert(
      fc.property(innerSections, newerRun, fc.subarray([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]), (generated, steps, reused) => {
        const innerSummary: SummarySections = {
          ...emptySections(),
          identifiers: generated.identifiers,
          files: generated.files,
          requests: generated.requests.map((text) => ({ text, status: 'done' as const })),
          progress: generated.progress,
        };
        const messages: ModelMessage[] = [summaryNode(innerSummary)];
        steps.forEach((step, index) => {
          const again = generated.files[reused[index % Math.max(1, reused.length)] ?? 0]?.path;
          switch (step.kind) {
            case 'ask':
              messages.push(user(`${step.text} Look at ${step.name} please.`));
              break;
            case 'answer':
              messages.push(assistant(`${step.text} It is in ${step.file}, see ${step.name}.`));
              break;
            default: {
              const file = again ?? step.file;
              const callId = `c${index}`;
              messages.push(
                assistant('', [
                  { callId, name: step.kind === 'read' ? 'read_file' : 'write_file', arguments: { path: file, content: 'x' } },
                ]),
              );
              messages.push(tool(callId, `done with ${file}`));
            }
          }
        });
        messages.push(tool('pad', 'padding line of a long and routine tool output\n'.repeat(400)));
        const summary = summarizeExtractively(messages, {
          maxTokens: 100_000,
          countTokens: chars4,
          targetTokens: () => 64,
          earlierSummaries: [{ messageIndex: 0, sections: innerSummary }],
        });
        if (summary === undefined) return false;
        const keys = summary.sections.identifiers.map((name) => name.replace(/\(\)$/, ''));
        for (const name of innerSummary.identifiers) expect(keys).toContain(name.replace(/\(\)$/, ''));
        const order = ['mentioned', 'read', 'modified', 'created'];
        for (const file of innerSummary.files) {
          const kept = summary.sections.files.find((candidate) => candidate.path === file.path);
          expect(kept).toBeDefined();
          expect(order.indexOf(kept?.action ?? '')).toBeGreaterThanOrEqual(order.indexOf(file.action));
        }
        expect(summary.sections.requests.slice(0, innerSummary.requests.length)).toEqual(innerSummary.requests);
        return true;
      }),
      { numRuns: 200 },
    );
  });
});
