// The spine writes each request in proportion to what changed (render-surface.ts keeps each
// node's message, the adapters keep each message's wire form, request-writer.ts keeps each
// item's JSON and the hash state of the unchanged prefix). What it records must still be
// exactly the SHA-256 of the bytes it sends, and those bytes exactly what a fresh render of
// the whole surface gives: checked here after every event of random sessions (summaries and
// prunes in the middle, system replacements, images, reasoning), for every adapter's renderer.

import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/log/canonical-json.js';
import type { ContentBlock, EventDraft, JsonObject } from '../../src/log/event.js';
import type { Sha256 } from '../../src/log/hash.js';
import { prepareAppend } from '../../src/log/seal.js';
import { typescriptSha256 } from '../../src/log/sha256.js';
import { SurfaceFold } from '../../src/log/surface-fold.js';
import { createAnthropicMessagesModel } from '../../src/providers/anthropic-messages/anthropic-messages-model.js';
import type { LanguageModel, ModelParams } from '../../src/providers/language-model.js';
import { createOpenAIChatModel } from '../../src/providers/openai-chat/openai-chat-model.js';
import { createOpenAIResponsesModel } from '../../src/providers/openai-responses/openai-responses-model.js';
import { ScriptedModel } from '../../src/providers/scripted-model.js';
import { renderSurface, SurfaceRenderCache } from '../../src/spine/render-surface.js';
import { RequestWriter } from '../../src/spine/request-writer.js';
import { nodeSha256 } from '../../src/store/node-sha256.js';
import { drafts, fixedNow } from '../support/events.js';
import { createTestRegistry } from '../support/log-drafts.js';
import { buildRandomLog, type RandomSource, seededRandom } from '../support/random-log.js';

// Rendering is pure: these adapters are never asked to send, so they point nowhere real.
const NOWHERE = 'http://127.0.0.1:9/renders-only';

/** Every adapter, in every setting that changes its render. */
const RENDERERS: Record<string, () => LanguageModel> = {
  scripted: () => new ScriptedModel({ replies: [] }),
  'openai-chat (openai)': () => createOpenAIChatModel({ model: 'gpt-4.1', apiKey: 'unused', baseUrl: NOWHERE, dialect: 'openai' }),
  'openai-chat (deepseek)': () =>
    createOpenAIChatModel({ model: 'deepseek-chat', apiKey: 'unused', baseUrl: NOWHERE, dialect: 'deepseek' }),
  'openai-chat (compatible)': () =>
    createOpenAIChatModel({ model: 'qwen3:8b', baseUrl: NOWHERE, contextWindow: 32_000, defaultMaxOutputTokens: 4_096 }),
  'anthropic-messages (prompt cache)': () =>
    createAnthropicMessagesModel({ model: 'claude-sonnet-4-5', apiKey: 'unused', baseUrl: NOWHERE }),
  'anthropic-messages (no prompt cache)': () =>
    createAnthropicMessagesModel({ model: 'claude-sonnet-4-5', apiKey: 'unused', baseUrl: NOWHERE, promptCache: false }),
  'openai-responses': () => createOpenAIResponsesModel({ model: 'gpt-4.1', apiKey: 'unused', baseUrl: NOWHERE }),
  'openai-responses (reasoning)': () =>
    createOpenAIResponsesModel({ model: 'gpt-4.1', apiKey: 'unused', baseUrl: NOWHERE, reasoningModel: true }),
};

const TOOLS: ModelParams['tools'] = [
  { name: 'read_file', description: 'Reads a file', parameters: { type: 'object', properties: { path: { type: 'string' } } } },
  { name: 'run', description: 'Runs a command — «quoted»', parameters: { type: 'object', properties: { argv: { type: 'array' } } } },
];

/** Gives the random log's messages varied content: images where they may go, reasoning of each provider, several blocks, non-ASCII. */
function enrich(draft: EventDraft, random: RandomSource): EventDraft {
  const data = draft.data as Record<string, unknown>;
  const content = data.content as ContentBlock[] | undefined;
  if (content === undefined || draft.surfaceOp === undefined) return draft;
  const extra: ContentBlock[] = [];
  const roll = random.nextInt(0, 9);
  if (draft.type === 'user/message' || draft.type === 'tool/result') {
    if (roll === 0) extra.push({ type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' });
    if (roll === 1) extra.push({ type: 'image', url: 'https://example.invalid/a.png' });
    if (roll === 2) extra.push({ type: 'text', text: 'ünïcødé — 😀 "quotes" \\ and\nlines' });
    if (roll === 3) return { ...draft, data: { ...data, content: [] } };
  }
  if (draft.type === 'assistant/message') {
    if (roll === 0) extra.unshift({ type: 'reasoning', provider: 'anthropic', text: 'thinking', signature: 'sig' });
    if (roll === 1) extra.unshift({ type: 'reasoning', provider: 'openai', id: 'rs_1', summary: ['s'], data: 'enc' });
    if (roll === 2) extra.unshift({ type: 'reasoning', provider: 'deepseek', text: 'deep' });
    if (roll === 3) extra.push({ type: 'text', text: 'a second block' });
  }
  if (draft.type === 'tool/result' && roll === 4) return { ...draft, data: { ...data, error: true } };
  const blocks = extra[0]?.type === 'reasoning' ? [...extra, ...content] : [...content, ...extra];
  return { ...draft, data: { ...data, content: blocks } };
}

function sha256Of(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** What a fresh adapter renders for the whole surface, or the error it throws. */
function fullRender(make: () => LanguageModel, fold: SurfaceFold, params: ModelParams): { text: string } | { error: string } {
  try {
    return { text: canonicalJson(make().render({ messages: renderSurface(fold.toArray()), params }).body) };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

function incrementalRender(
  model: LanguageModel,
  cache: SurfaceRenderCache,
  writer: RequestWriter,
  fold: SurfaceFold,
  params: ModelParams,
): { text: string; digest: string } | { error: string } {
  let body: JsonObject;
  try {
    body = model.render({ messages: cache.render(fold.toArray()), params }).body;
  } catch (error) {
    return { error: (error as Error).message };
  }
  const written = writer.write(body);
  return { text: written.text(), digest: written.digest };
}

/**
 * Folds a random session event by event; after each, the incremental writer's request must be
 * the full render's text and digest (or both must refuse alike). Returns the checks made.
 */
function checkSession(make: () => LanguageModel, sha256: Sha256, seed: number, stream: boolean, withTools: boolean): number {
  const random = seededRandom(seed);
  const log = buildRandomLog(random, { formatVersion: 2, maxEvents: 90 });
  const params: ModelParams = { tools: withTools ? TOOLS : [], stream, ...(seed % 3 === 0 ? { maxOutputTokens: 512 } : {}) };
  const fold = new SurfaceFold({ registry: createTestRegistry() });
  const model = make();
  const cache = new SurfaceRenderCache();
  // Small spacings, so that the kept hash states are many and a change in the middle meets them.
  const writer = new RequestWriter(sha256, { checkpointChars: 1 + (seed % 97), tailCheckpoints: seed % 4 });
  let checks = 0;
  for (const batch of log.batches) {
    for (const draft of batch) {
      prepareAppend(fold, [enrich(draft, random)], fixedNow, nodeSha256.hex);
      // A request on an empty surface is never made; a request of format 2 renders it too.
      if (fold.size === 0) continue;
      const expected = fullRender(make, fold, params);
      const actual = incrementalRender(model, cache, writer, fold, params);
      if ('error' in expected) expect(actual).toEqual(expected);
      else {
        expect('text' in actual && actual.text).toBe(expected.text);
        expect('digest' in actual && actual.digest).toBe(sha256Of(expected.text));
      }
      checks++;
    }
  }
  return checks;
}

describe.each(Object.entries(RENDERERS))('a request of %s written incrementally', (_name, make) => {
  it.each([
    ['node:crypto', nodeSha256],
    ['plain TypeScript', typescriptSha256],
  ] as Array<[string, Sha256]>)(
    'is the full render of the surface byte for byte, its digest their SHA-256 (%s), after every event of random sessions',
    (_hash, sha256) => {
      let checks = 0;
      fc.assert(
        fc.property(fc.integer({ min: 1, max: 2 ** 31 - 1 }), fc.boolean(), fc.boolean(), (seed, stream, withTools) => {
          checks += checkSession(make, sha256, seed, stream, withTools);
        }),
        { numRuns: sha256 === nodeSha256 ? 40 : 10 },
      );
      expect(checks).toBeGreaterThan(100);
    },
  );
});

describe('the bytes hashed per request', () => {
  /** A long session: a system prompt and 600 turns of a question, a tool call, its result and an answer. */
  function longSession(): SurfaceFold {
    const fold = new SurfaceFold({ registry: createTestRegistry() });
    const list: EventDraft[] = [drafts.startV2(), drafts.system()];
    for (let turn = 1; turn <= 600; turn++) {
      list.push(
        drafts.user(`question ${turn} `.repeat(20)),
        drafts.assistant(`looking ${turn}`, [`call-${turn}`]),
        drafts.toolResult(`call-${turn}`, `line ${turn}\n`.repeat(40)),
        drafts.assistant(`answer ${turn} `.repeat(10)),
      );
    }
    prepareAppend(fold, list, fixedNow, nodeSha256.hex);
    return fold;
  }

  it.each(Object.entries(RENDERERS))(
    'are those from the first change on, for %s: a grown surface hashes its new end, a summary in the middle what follows it',
    (_name, make) => {
      const fold = longSession();
      const params: ModelParams = { tools: TOOLS, stream: true };
      const model = make();
      const cache = new SurfaceRenderCache();
      const writer = new RequestWriter(nodeSha256, { checkpointChars: 16 * 1024 });
      const write = () => writer.write(model.render({ messages: cache.render(fold.toArray()), params }).body);
      const first = write();
      expect(first.hashedChars).toBe(first.length);

      prepareAppend(fold, [drafts.user('one more question')], fixedNow, nodeSha256.hex);
      const grown = write();
      expect(grown.digest).toBe(sha256Of(canonicalJson(make().render({ messages: renderSurface(fold.toArray()), params }).body)));
      // What a new user message changes: itself, the turn or two before it, and what follows the messages (the tools).
      expect(grown.hashedChars).toBeLessThan(grown.length / 20);

      // A summary of the middle third: hashing resumes at the last kept state before the first changed byte.
      const before = grown.text();
      const nodes = fold.toArray();
      const start = nodes[800]?.seq as number;
      const end = nodes[1599]?.seq as number;
      const sources = nodes.slice(800, 1600).map((node) => node.seq);
      prepareAppend(fold, [drafts.summary('the middle, in short', start, end, sources)], fixedNow, nodeSha256.hex);
      const summarized = write();
      const expected = canonicalJson(make().render({ messages: renderSurface(fold.toArray()), params }).body);
      expect(summarized.digest).toBe(sha256Of(expected));
      let unchanged = 0;
      while (before[unchanged] === expected[unchanged]) unchanged++;
      expect(unchanged).toBeGreaterThan(expected.length / 4);
      expect(summarized.hashedChars).toBeGreaterThanOrEqual(expected.length - unchanged);
      expect(summarized.hashedChars).toBeLessThanOrEqual(expected.length - unchanged + 16 * 1024);
    },
  );
});
