// The data shapes of format 2 (SPEC §2): what a format-2 session holds, what a format-1 session
// is still held to, and the typed accessor that reads either.

import { describe, expect, it } from 'vitest';
import { imageBlockFromUrl, parseBase64DataUrl } from '../../src/log/content-block.js';
import { InvalidEventError, UnknownEventTypeError } from '../../src/log/errors.js';
import type { EventDraft } from '../../src/log/event.js';
import { dataOf } from '../../src/log/event-data.js';
import { foreignEventDraft, foreignEventType } from '../../src/log/foreign-event.js';
import { prepareAppend } from '../../src/log/seal.js';
import { SurfaceFold } from '../../src/log/surface-fold.js';
import { drafts, fixedNow, text } from '../support/events.js';

/** Appends `tail` to a session of `version` with a system message, a user message and an answer calling call-1; returns the error, if any. */
function refusalIn(version: 1 | 2, tail: EventDraft[]): unknown {
  const fold = new SurfaceFold();
  prepareAppend(
    fold,
    [version === 1 ? drafts.start() : drafts.startV2(), drafts.system(), drafts.user('go'), drafts.assistant('reading', ['call-1'])],
    fixedNow,
  );
  try {
    prepareAppend(fold, tail, fixedNow);
    return undefined;
  } catch (error) {
    return error;
  }
}

const assistantWith = (content: unknown[], usage?: unknown): EventDraft => ({
  type: 'assistant/message',
  data: { content, toolCalls: [], model: 'm', ...(usage === undefined ? {} : { usage }) },
  surfaceOp: 'append',
});
const resultWith = (error: unknown): EventDraft => ({
  type: 'tool/result',
  data: { callId: 'call-1', content: text('out'), error },
  surfaceOp: 'append',
});
const withResult = (draft: EventDraft): EventDraft[] => [drafts.toolResult('call-1', 'out'), draft];

const REASONING = {
  'Anthropic thinking': { type: 'reasoning', provider: 'anthropic', text: 'Let me check the tests.', signature: 'EqQBCgIYAhIM…' },
  'Anthropic redacted_thinking': { type: 'reasoning', provider: 'anthropic', data: 'EmwKAhgBEgy3va3pzix/LafPsn4a…' },
  'OpenAI Responses reasoning': {
    type: 'reasoning',
    provider: 'openai',
    id: 'rs_68a1',
    summary: ['**Planning repository inspection**', 'Then reading the config.'],
    data: 'gAAAAABpG5SBkoDzu8k8…',
  },
  'DeepSeek reasoning_content': { type: 'reasoning', provider: 'deepseek', text: '用户想要…' },
  'a signature alone': { type: 'reasoning', provider: 'google', signature: 'CiQB…' },
};

describe('content blocks of format 2', () => {
  for (const [name, block] of Object.entries(REASONING)) {
    it(`holds ${name} as a reasoning block, exactly`, () => {
      expect(refusalIn(2, withResult(assistantWith([block, { type: 'text', text: 'Done.' }])))).toBeUndefined();
    });
  }

  it('refuses a reasoning block with nothing in it, and one without its provider', () => {
    expect(refusalIn(2, withResult(assistantWith([{ type: 'reasoning', provider: 'anthropic' }])))).toMatchObject({
      field: 'data.content[0]',
    });
    expect(refusalIn(2, withResult(assistantWith([{ type: 'reasoning', text: 'x' }])))).toMatchObject({
      field: 'data.content[0].provider',
    });
  });

  it('holds server-side tool calls and their results as blocks of the answer, not as text', () => {
    const content = [
      { type: 'server-tool-call', provider: 'anthropic', name: 'web_search', id: 'srvtoolu_01', input: { query: 'shadowlog' } },
      {
        type: 'server-tool-result',
        provider: 'anthropic',
        name: 'web_search_tool_result',
        callId: 'srvtoolu_01',
        content: [{ type: 'web_search_result', url: 'https://example.org', encrypted_content: 'Eq…' }],
      },
      { type: 'server-tool-call', provider: 'openai', name: 'web_search', status: 'completed', input: { type: 'search', query: 'x' } },
      { type: 'text', text: 'Found it.' },
    ];
    expect(refusalIn(2, withResult(assistantWith(content)))).toBeUndefined();
    expect(refusalIn(2, withResult(assistantWith([{ type: 'server-tool-call', provider: 'openai', input: {} }])))).toMatchObject({
      field: 'data.content[0].name',
    });
  });

  it('holds an image by URL, and refuses a base64 data: URL in that form', () => {
    expect(
      refusalIn(2, [
        drafts.toolResult('call-1', 'x'),
        { type: 'user/message', data: { content: [{ type: 'image', url: 'https://example.org/a.png' }] }, surfaceOp: 'append' },
      ]),
    ).toBeUndefined();
    const error = refusalIn(2, [
      drafts.toolResult('call-1', 'x'),
      { type: 'user/message', data: { content: [{ type: 'image', url: 'data:image/png;base64,iVBORw0K' }] }, surfaceOp: 'append' },
    ]);
    expect(error).toMatchObject({ field: 'data.content[0].url' });
    expect((error as Error).message).toMatch(/imageBlockFromUrl/);
  });

  it('reads a base64 data: URL into its media type and data, giving the URL back exactly', () => {
    const url = 'data:image/png;name=shot.png;base64,iVBORw0KGgo=';
    const block = imageBlockFromUrl(url);
    expect(block).toEqual({ type: 'image', mediaType: 'image/png;name=shot.png', data: 'iVBORw0KGgo=' });
    expect(`data:${block.mediaType};base64,${block.data}`).toBe(url);
    expect(imageBlockFromUrl('data:image/svg+xml,%3Csvg%3E')).toEqual({ type: 'image', url: 'data:image/svg+xml,%3Csvg%3E' });
    expect(imageBlockFromUrl('https://example.org/a.png', 'image/png')).toEqual({
      type: 'image',
      url: 'https://example.org/a.png',
      mediaType: 'image/png',
    });
    expect(parseBase64DataUrl('data:image/png;base64,not base64!')).toBeUndefined();
  });

  it('refuses every format-2 block in a format-1 session, naming the version', () => {
    for (const block of [...Object.values(REASONING), { type: 'server-tool-call', provider: 'openai', name: 'web_search', input: {} }]) {
      const error = refusalIn(1, withResult(assistantWith([block])));
      expect(error).toBeInstanceOf(InvalidEventError);
      expect((error as Error).message).toMatch(
        /data\.content\[0\]\.type must be one of text, image \(format version 1, the version of this session\)/,
      );
    }
    expect(
      refusalIn(1, [
        drafts.toolResult('call-1', 'x'),
        { type: 'user/message', data: { content: [{ type: 'image', url: 'https://example.org/a.png' }] }, surfaceOp: 'append' },
      ]),
    ).toMatchObject({
      field: 'data.content[0].mediaType',
    });
  });
});

describe('usage', () => {
  it('holds the cache and reasoning counts, in either version', () => {
    const usage = { inputTokens: 26_450, outputTokens: 900, cacheReadTokens: 11_442, cacheWriteTokens: 15_005, reasoningTokens: 300 };
    expect(refusalIn(2, withResult(assistantWith(text('ok'), usage)))).toBeUndefined();
    expect(refusalIn(1, withResult(assistantWith(text('ok'), usage)))).toBeUndefined();
  });

  it('refuses null for a count the source did not give: it is left out', () => {
    expect(refusalIn(2, withResult(assistantWith(text('ok'), { inputTokens: 10, outputTokens: 2, cacheReadTokens: null })))).toMatchObject({
      field: 'data.usage.cacheReadTokens',
    });
  });

  it('refuses cache counts larger than the input: inputTokens is the whole input, cache included', () => {
    // Anthropic's input_tokens (3) is only the uncached part; the whole input is 3 + 15,005 + 11,442.
    const error = refusalIn(
      2,
      withResult(assistantWith(text('ok'), { inputTokens: 3, outputTokens: 2, cacheReadTokens: 11_442, cacheWriteTokens: 15_005 })),
    );
    expect(error).toMatchObject({ field: 'data.usage.inputTokens' });
    expect((error as Error).message).toMatch(/the whole input, cache reads and writes included \(at least 26447\)/);
    expect(refusalIn(2, withResult(assistantWith(text('ok'), { inputTokens: 3, outputTokens: 2, reasoningTokens: 5 })))).toMatchObject({
      field: 'data.usage.outputTokens',
    });
  });
});

describe('tool/result.error', () => {
  it('may be a flag without a message in format 2, and not in format 1', () => {
    expect(refusalIn(2, [resultWith(true)])).toBeUndefined();
    expect(refusalIn(2, [resultWith({ message: 'failed' })])).toBeUndefined();
    expect(refusalIn(1, [resultWith({ message: 'failed' })])).toBeUndefined();
    expect(refusalIn(1, [resultWith(true)])).toMatchObject({ field: 'data.error' });
  });

  it('refuses false: a result that is not an error has no error field', () => {
    const error = refusalIn(2, [resultWith(false)]);
    expect(error).toMatchObject({ field: 'data.error' });
    expect((error as Error).message).toMatch(/leave it out when the result is not an error/);
  });
});

describe('session/start.parent', () => {
  it('names the parent session and the call that spawned it', () => {
    const fold = new SurfaceFold();
    const [start] = prepareAppend(fold, [drafts.startV2({ parent: { sessionId: 'main-1', callId: 'toolu_01' } })], fixedNow).events;
    expect(dataOf(start as never, 'session/start').parent).toEqual({ sessionId: 'main-1', callId: 'toolu_01' });
  });

  it('refuses a parent that is not a session id', () => {
    expect(() => prepareAppend(new SurfaceFold(), [drafts.startV2({ parent: { sessionId: '../etc' } })], fixedNow)).toThrow(
      /data\.parent\.sessionId must be a session id/,
    );
  });
});

const request = (data: Record<string, unknown>): EventDraft => ({
  type: 'model/request',
  data: { turn: 1, step: 1, provider: 'anthropic', model: 'claude-opus-4-6', surfaceSeqs: [1, 2, 3], ...data },
});
const SENT = { params: {}, requestDigest: 'a'.repeat(64), estimatedTokens: 10, rendererVersion: 'surface/1 anthropic-messages/1' };

describe('model/request provenance', () => {
  const at = (version: 1 | 2, draft: EventDraft) =>
    refusalIn(version, [
      drafts.toolResult('call-1', 'out'),
      drafts.user('again'),
      { ...draft, data: { ...(draft.data as object), surfaceSeqs: [1, 2, 3, 4, 5] } },
    ]);

  it('holds an imported call with what the source knows, and no digest', () => {
    expect(at(2, request({ provenance: 'imported' }))).toBeUndefined();
    expect(at(2, request({ provenance: 'imported', estimatedTokens: 12, contextWindow: 200_000 }))).toBeUndefined();
    const error = at(2, request({ provenance: 'imported', requestDigest: 'a'.repeat(64) }));
    expect(error).toMatchObject({ field: 'data.requestDigest' });
    expect((error as Error).message).toMatch(/not sent by shadowlog/);
  });

  it('holds a proxied call with the digest of the bytes received and those bytes', () => {
    expect(
      at(2, request({ provenance: 'proxied', requestDigest: 'b'.repeat(64), requestBody: { encoding: 'utf-8', text: '{"model":"m"}' } })),
    ).toBeUndefined();
    expect(at(2, request({ provenance: 'proxied', requestDigest: 'b'.repeat(64) }))).toMatchObject({ field: 'data.requestBody' });
    expect(
      at(2, request({ provenance: 'proxied', requestDigest: 'b'.repeat(64), requestBody: { encoding: 'base64', text: '***' } })),
    ).toMatchObject({
      field: 'data.requestBody.text',
    });
  });

  it('still requires of a call shadowlog sent everything replay needs', () => {
    expect(at(2, request(SENT))).toBeUndefined();
    const { params: _params, ...withoutParams } = SENT;
    expect(at(2, request(withoutParams))).toMatchObject({ field: 'data.params' });
  });

  it('refuses provenance in a format-1 session', () => {
    expect(at(1, request(SENT))).toBeUndefined();
    expect(at(1, request({ ...SENT, provenance: 'imported' }))).toMatchObject({ field: 'data.provenance' });
    expect(at(1, request({ provenance: 'imported' }))).toMatchObject({ field: 'data.params' });
  });
});

describe('foreign events', () => {
  it('names a kind of line in kebab case under its source', () => {
    expect(foreignEventType('codex', 'turn_context')).toBe('codex/turn-context');
    expect(foreignEventType('claude-code', 'file-history-snapshot')).toBe('claude-code/file-history-snapshot');
    expect(foreignEventType('pi', 'thinkingLevelChange')).toBe('pi/thinking-level-change');
    expect(foreignEventType('pi', '42')).toBe('pi/line-42');
  });

  it('keeps a source line whole in a format-2 session, and changes no surface', () => {
    const line = '{"type":"progress","data":{"type":"hook_progress"},"uuid":"f2662c95"}';
    const fold = new SurfaceFold();
    prepareAppend(fold, [drafts.startV2(), drafts.system()], fixedNow);
    const [event] = prepareAppend(fold, [foreignEventDraft('claude-code', 'progress', line, 7)], fixedNow).events;
    expect(event).toMatchObject({ type: 'claude-code/progress', ignorable: true, data: { text: line, line: 7 } });
    expect(fold.size).toBe(1);
  });

  it('refuses one that is not ignorable, or whose data does not hold the line', () => {
    const error = refusalIn(2, [{ type: 'codex/turn-context', data: { text: '{}' } }]);
    expect(error).toMatchObject({ field: 'ignorable' });
    expect((error as Error).message).toMatch(/a foreign event \(a line of another harness's file\)/);
    expect(refusalIn(2, [{ type: 'codex/turn-context', data: { record: {} }, ignorable: true }])).toMatchObject({ field: 'data.text' });
  });

  it('is, in a format-1 session, an unknown type like any other', () => {
    expect(refusalIn(1, [{ type: 'codex/turn-context', data: { record: {} }, ignorable: true }])).toBeUndefined();
    expect(refusalIn(1, [{ type: 'codex/turn-context', data: {} }])).toBeInstanceOf(UnknownEventTypeError);
  });
});

describe('dataOf', () => {
  it('validates data that no fold applied, once, and types it', () => {
    const event = { seq: 4, type: 'tool/result', data: { callId: 'c', content: [{ type: 'text', text: 'x' }], error: true } };
    const data = dataOf(event, 'tool/result');
    expect(data.error).toBe(true);
    expect(dataOf(event, 'tool/result')).toBe(data);
  });

  it('refuses data of the wrong shape, and an event of another type', () => {
    expect(() => dataOf({ seq: 4, type: 'tool/result', data: { callId: 'c', content: 'x' } }, 'tool/result')).toThrow(
      /event 4: data\.content must be an array/,
    );
    expect(() => dataOf({ seq: 5, type: 'user/message', data: { content: [] } }, 'tool/result')).toThrow(
      /event 5: type must be tool\/result, found "user\/message"/,
    );
  });
});
