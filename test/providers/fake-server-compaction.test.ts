// The compaction rules of the fake provider server, rule by rule: what Anthropic's compaction beta
// and the Responses API's compact endpoint refuse is refused with a 400 in the provider's own
// envelope, listed in `violations`; a request that keeps the rules is served. The compaction
// stand-ins (the benchmark's provider) answer from the request they received, in its wire format.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { scriptAwareEstimator } from '../../src/meter/script-aware.js';
import { anthropicCompactionStandIn, anthropicStandInSummary, responsesCompactionStandIn } from '../support/fake-provider-compaction.js';
import { type FakeProviderServer, startFakeProviderServer } from '../support/fake-provider-server.js';

let server: FakeProviderServer;
beforeEach(async () => {
  server = await startFakeProviderServer();
});
afterEach(async () => {
  await server.close();
});

async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${server.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, text: await response.text() };
}

const beta = { 'anthropic-version': '2023-06-01', 'anthropic-beta': 'compact-2026-01-12' };
const compaction = { type: 'compaction', content: 'Earlier: the value is 42.' };
const user = { role: 'user', content: [{ type: 'text', text: 'Go on.' }] };
const edit = { type: 'compact_20260112', trigger: { type: 'input_tokens', value: 50_000 }, pause_after_compaction: true };
const messages = (list: unknown[], extra: object = {}) => ({ model: 'claude-sonnet-4-6', max_tokens: 100, messages: list, ...extra });
const answer = { type: 'json' as const, body: { ok: true } };

describe('the fake server keeps the compaction rules', () => {
  const refused: Array<[string, string, unknown, Record<string, string>, RegExp]> = [
    [
      'Anthropic: a compaction block without the beta header',
      '/v1/messages',
      messages([{ role: 'assistant', content: [compaction] }, user]),
      { 'anthropic-version': '2023-06-01' },
      /requires the anthropic-beta header compact-2026-01-12/,
    ],
    [
      'Anthropic: a compaction block that is not the first block of the conversation',
      '/v1/messages',
      messages([user, { role: 'assistant', content: [compaction] }, user]),
      beta,
      /compaction_block_misplaced/,
    ],
    [
      'Anthropic: two compaction blocks with content',
      '/v1/messages',
      messages([{ role: 'assistant', content: [compaction, compaction] }, user]),
      beta,
      /compaction_block_ambiguous/,
    ],
    [
      'Anthropic: an empty summary',
      '/v1/messages',
      messages([{ role: 'assistant', content: [{ type: 'compaction', content: '' }] }, user]),
      beta,
      /non-empty string, or null/,
    ],
    [
      'Anthropic: a trigger below 50,000 input tokens',
      '/v1/messages',
      messages([user], { context_management: { edits: [{ ...edit, trigger: { type: 'input_tokens', value: 1_000 } }] } }),
      beta,
      /greater than or equal to 50000/,
    ],
    [
      'Anthropic: the compaction edit without the beta header',
      '/v1/messages',
      messages([user], { context_management: { edits: [edit] } }),
      { 'anthropic-version': '2023-06-01' },
      /requires the anthropic-beta header/,
    ],
    [
      'Responses compact: a parameter it does not take',
      '/v1/responses/compact',
      { model: 'gpt-5.4', input: [{ type: 'message', role: 'user', content: 'hi' }], tools: [] },
      {},
      /Unknown parameter: 'tools'/,
    ],
    [
      'Responses: a compaction item without its encrypted content',
      '/v1/responses',
      { model: 'gpt-5.4', input: [{ type: 'compaction', id: 'cmp_1' }] },
      {},
      /goes back with its encrypted_content/,
    ],
  ];
  for (const [name, path, body, headers, wording] of refused) {
    it(`refuses ${name}`, async () => {
      server.enqueue(answer);
      const response = await post(path, body, headers);
      expect(response.status).toBe(400);
      expect(response.text).toMatch(wording);
      expect(server.violations).toHaveLength(1);
      expect(server.remaining()).toBe(1);
    });
  }

  it('serves what keeps the rules: a conversation that starts from its compaction, a compaction request, the compact endpoint', async () => {
    server.enqueue(answer, answer, answer, answer);
    expect((await post('/v1/messages', messages([{ role: 'assistant', content: [compaction] }, user]), beta)).status).toBe(200);
    expect((await post('/v1/messages', messages([user], { context_management: { edits: [edit] } }), beta)).status).toBe(200);
    const window = [{ type: 'message', role: 'user', content: 'hi' }];
    expect((await post('/v1/responses/compact', { model: 'gpt-5.4', input: window })).status).toBe(200);
    const next = [
      ...window,
      { type: 'compaction', id: 'cmp_1', encrypted_content: 'gAAAA' },
      { type: 'message', role: 'user', content: 'go on' },
    ];
    expect((await post('/v1/responses', { model: 'gpt-5.4', input: next })).status).toBe(200);
    expect(server.violations).toEqual([]);
  });

  it("computes the stand-ins' answers from the request: Anthropic's summary names the messages, the Responses window keeps the user messages", async () => {
    server.enqueue(anthropicCompactionStandIn, responsesCompactionStandIn);
    const compactRequest = messages([user, { role: 'assistant', content: 'Done.' }, user], { context_management: { edits: [edit] } });
    const anthropic = await post('/v1/messages', compactRequest, beta);
    expect(anthropic.status).toBe(200);
    expect(JSON.parse(anthropic.text)).toMatchObject({
      stop_reason: 'compaction',
      content: [{ type: 'compaction', content: anthropicStandInSummary(3) }],
      usage: { iterations: [{ type: 'compaction', input_tokens: scriptAwareEstimator.countText(server.requests[0]?.body ?? '') }] },
    });
    const input = [
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Task 1' }] },
      { type: 'function_call', call_id: 'call_1', name: 'read_file', arguments: '{}' },
      { type: 'function_call_output', call_id: 'call_1', output: 'key1 = v1' },
    ];
    const responses = await post('/v1/responses/compact', { model: 'gpt-5.4', input });
    const body = JSON.parse(responses.text);
    expect(body).toMatchObject({ object: 'response.compaction', output: [input[0], { type: 'compaction', id: 'cmp_fake_3' }] });
    expect(Buffer.from(body.output[1].encrypted_content, 'base64').toString()).not.toContain('key1');
    expect(server.violations).toEqual([]);
  });
});
