// Benchmark: what the AI SDK recorder (shadowlog/ai-sdk) adds to an app's calls. The same app —
// ai@6 generateText / streamText over @ai-sdk/openai — runs with and without the recorder, in one
// process and one run, against an in-process fetch that answers each request from memory (no
// network, so the figures are the recorder's own cost, not loopback noise). The app keeps a
// history of 10, 100 and 1,000 messages and resends it each call, as AI SDK apps do; each call
// adds a question and its answer. Added time per call is the app's wall time with the recorder
// minus without it, the recorder's writes to the store included (the run ends with a flush); per
// streamed chunk, the same for a stream of many small deltas.

import { createOpenAI } from '@ai-sdk/openai';
import { generateText, type ModelMessage, streamText, wrapLanguageModel } from 'ai';
import { createAiSdkRecorder } from '../src/ai-sdk/index.js';
import { MemoryLogStore } from '../src/store/memory/memory-store.js';
import { openSqliteStore } from '../src/store/sqlite/index.js';
import { type Benchmark, type BenchReport, clock, createTempDirectory, elapsedMs, formatMs, formatRatio, median } from './support.js';

const ANSWER = JSON.stringify({
  id: 'chatcmpl-bench',
  object: 'chat.completion',
  created: 1,
  model: 'gpt-4o',
  choices: [{ index: 0, message: { role: 'assistant', content: 'A short answer.' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 100, completion_tokens: 4, total_tokens: 104 },
});

/** An OpenAI chat-completions stream of `chunks` one-word deltas. */
function streamBody(chunks: number): string {
  const event = (delta: object, finish: string | null) =>
    `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const parts = [event({ role: 'assistant', content: '' }, null)];
  for (let index = 0; index < chunks; index++) parts.push(event({ content: `w${index} ` }, null));
  parts.push(event({}, 'stop'));
  parts.push('data: [DONE]\n\n');
  return parts.join('');
}

/** The provider's fetch, answered from memory: the request body is read as a server would. */
function memoryFetch(stream: string): typeof globalThis.fetch {
  return async (_input, init) => {
    const body = typeof init?.body === 'string' ? init.body : '';
    const streaming = body.includes('"stream":true');
    return new Response(streaming ? stream : ANSWER, {
      status: 200,
      headers: { 'content-type': streaming ? 'text/event-stream' : 'application/json' },
    });
  };
}

function history(size: number): ModelMessage[] {
  return Array.from({ length: size }, (_, index) =>
    index % 2 === 0
      ? { role: 'user' as const, content: `Question ${index / 2}: what did the log say about step ${index}?` }
      : { role: 'assistant' as const, content: `Answer ${(index - 1) / 2}: it said the step ran and wrote ${index} events.` },
  );
}

type Variant = 'without' | 'memory' | 'sqlite';

interface App {
  readonly model: Parameters<typeof generateText>[0]['model'];
  finish(): Promise<void>;
}

async function app(variant: Variant, stream: string, sessionId: string, directory: string): Promise<App> {
  const fetch = memoryFetch(stream);
  if (variant === 'without') return { model: createOpenAI({ apiKey: 'sk-bench', fetch }).chat('gpt-4o'), finish: async () => {} };
  const store = variant === 'memory' ? new MemoryLogStore() : await openSqliteStore(`${directory}/${sessionId}.db`);
  const recorder = await createAiSdkRecorder({ store, sessionId, baseFetch: fetch });
  const model = wrapLanguageModel({
    model: createOpenAI({ apiKey: 'sk-bench', fetch: recorder.fetch }).chat('gpt-4o'),
    middleware: recorder.middleware,
  });
  return {
    model,
    async finish() {
      await recorder.close();
      await store.close();
    },
  };
}

/** ms per call for `calls` calls on a history of `size` messages (after one call that is not timed). */
async function perCall(variant: Variant, size: number, calls: number, directory: string, tag: string): Promise<number> {
  const subject = await app(variant, '', `${tag}-${variant}-${size}`, directory);
  const messages = history(size);
  const ask = async (index: number) => {
    messages.push({ role: 'user', content: `New question ${index}?` });
    const result = await generateText({ model: subject.model, system: 'You are benchmarked.', messages });
    messages.push(...result.response.messages);
  };
  await ask(-1);
  const start = clock();
  for (let index = 0; index < calls; index++) await ask(index);
  await subject.finish();
  return elapsedMs(start) / calls;
}

/** ms to read a stream of `chunks` deltas to its end. */
async function streamMs(variant: Variant, chunks: number, directory: string, tag: string): Promise<number> {
  const subject = await app(variant, streamBody(chunks), `${tag}-stream-${variant}`, directory);
  const start = clock();
  const result = streamText({ model: subject.model, prompt: 'Stream, please.' });
  let received = 0;
  for await (const _delta of result.textStream) received++;
  const ms = elapsedMs(start);
  await subject.finish();
  if (received < chunks) throw new Error(`the stream gave ${received} deltas, expected ${chunks}`);
  return ms;
}

export const benchmark: Benchmark = {
  name: 'ai-sdk',
  description: 'the time the AI SDK recorder adds per call (10, 100, 1,000 messages of history) and per streamed chunk',
  async run(context): Promise<BenchReport> {
    const sizes = [10, 100, 1_000];
    const calls = context.quick ? 5 : 30;
    const rounds = context.quick ? 1 : 3;
    const chunks = context.quick ? 500 : 5_000;
    const directory = createTempDirectory('ai-sdk');
    try {
      const rows: Record<number, Record<Variant, number[]>> = {};
      for (const size of sizes) {
        rows[size] = { without: [], memory: [], sqlite: [] };
        for (let round = 0; round < rounds; round++) {
          for (const variant of ['without', 'memory', 'sqlite'] as const) {
            context.progress(`${size} messages, ${variant}, round ${round + 1}`);
            rows[size][variant].push(await perCall(variant, size, calls, directory.path, `r${round}`));
          }
        }
      }
      const streamed: Record<Variant, number[]> = { without: [], memory: [], sqlite: [] };
      // One untimed stream per variant first: the first stream read in a process pays for warming up the stream code.
      for (const variant of ['without', 'memory', 'sqlite'] as const) await streamMs(variant, chunks, directory.path, 'warm');
      for (let round = 0; round < rounds; round++) {
        for (const variant of ['without', 'memory', 'sqlite'] as const) {
          context.progress(`stream of ${chunks} chunks, ${variant}, round ${round + 1}`);
          streamed[variant].push(await streamMs(variant, chunks, directory.path, `r${round}`));
        }
      }
      const m = (values: readonly number[]) => median(values);
      const perCallFigures = Object.fromEntries(
        sizes.map((size) => {
          const row = rows[size] as Record<Variant, number[]>;
          return [
            String(size),
            {
              withoutMs: m(row.without),
              memoryMs: m(row.memory),
              sqliteMs: m(row.sqlite),
              addedMemoryMs: m(row.memory) - m(row.without),
              addedSqliteMs: m(row.sqlite) - m(row.without),
            },
          ];
        }),
      );
      const streamWithout = m(streamed.without);
      return {
        tables: [
          {
            title: `Time per generateText call (median of ${rounds} rounds of ${calls} calls; history resent each call)`,
            columns: ['history', 'without', 'recorder→memory', 'added', 'ratio', 'recorder→SQLite', 'added', 'ratio'],
            rows: sizes.map((size) => {
              const figures = perCallFigures[String(size)] as { withoutMs: number; memoryMs: number; sqliteMs: number };
              return [
                `${size} messages`,
                formatMs(figures.withoutMs),
                formatMs(figures.memoryMs),
                formatMs(figures.memoryMs - figures.withoutMs),
                formatRatio(figures.memoryMs / figures.withoutMs),
                formatMs(figures.sqliteMs),
                formatMs(figures.sqliteMs - figures.withoutMs),
                formatRatio(figures.sqliteMs / figures.withoutMs),
              ];
            }),
          },
          {
            title: `A streamText of ${chunks} chunks, read to its end (median of ${rounds})`,
            columns: ['variant', 'whole stream', 'per chunk', 'added per chunk', 'ratio'],
            rows: (['without', 'memory', 'sqlite'] as const).map((variant) => [
              variant === 'without' ? 'without' : `recorder→${variant === 'memory' ? 'memory' : 'SQLite'}`,
              formatMs(m(streamed[variant])),
              `${((m(streamed[variant]) / chunks) * 1000).toFixed(2)} µs`,
              variant === 'without' ? '' : `${(((m(streamed[variant]) - streamWithout) / chunks) * 1000).toFixed(2)} µs`,
              formatRatio(m(streamed[variant]) / streamWithout),
            ]),
          },
        ],
        notes: [
          'one process, no network: the provider (@ai-sdk/openai) builds each request and reads each answer as usual, and its fetch is answered from memory, so the difference is what the recorder costs the app',
          "the app's time includes the recorder's writes (each call's request and answer are written after it returns, on the same thread, and the run ends with close, which waits for them); recorder→SQLite writes a SQLite file (WAL, synchronous FULL), recorder→memory the in-memory store",
          'variants alternate within each round; each timed run starts after one untimed call that writes the history to the log',
        ],
        figures: {
          calls,
          rounds,
          perCall: perCallFigures,
          stream: {
            chunks,
            withoutMs: streamWithout,
            memoryMs: m(streamed.memory),
            sqliteMs: m(streamed.sqlite),
            addedPerChunkMemoryUs: ((m(streamed.memory) - streamWithout) / chunks) * 1000,
            addedPerChunkSqliteUs: ((m(streamed.sqlite) - streamWithout) / chunks) * 1000,
          },
        },
      };
    } finally {
      directory.cleanup();
    }
  },
};
