// `shadowlog chat` with a small local model: the fake server on 127.0.0.1 refuses what a small
// llama.cpp or vLLM server refuses (a request whose prompt and max_tokens pass its window, a
// max_tokens above its output limit), and the chat says in the conversation when it compacts or
// prunes, with the tokens before and after.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCliWorkspace } from '../support/cli.js';
import { fakePromptTokens } from '../support/fake-provider-requests.js';
import {
  type FakeProviderServer,
  type FakeResponse,
  type RecordedRequest,
  startFakeProviderServer,
} from '../support/fake-provider-server.js';

const WINDOW = 4096;
const OUTPUT = 1024;

/** A chat answer as the server would stream it, with usage counted as the server counts. */
function answer(text: string): FakeResponse {
  return {
    type: 'computed',
    respond: (request: RecordedRequest) => {
      const body = JSON.parse(request.body) as { messages: unknown[]; tools?: unknown; stream?: boolean };
      const usage = { prompt_tokens: fakePromptTokens(body.messages, body.tools), completion_tokens: Math.ceil(text.length / 4) };
      const base = { id: 'chatcmpl-local', model: 'qwen-local', created: 1 };
      if (body.stream !== true) {
        return {
          type: 'json',
          body: {
            ...base,
            object: 'chat.completion',
            choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
            usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
          },
        };
      }
      const chunk = (delta: object, finish: string | null, extra: object = {}) =>
        JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }], ...extra });
      return {
        type: 'sse',
        payloads: [
          chunk({ role: 'assistant', content: text }, null),
          chunk({}, 'stop'),
          JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [], usage }),
        ],
      };
    },
  };
}

const long = (turn: number) => `Answer ${turn}: ${'the build reads the configuration and writes the bundle. '.repeat(45)}`;
const SUMMARY = '## Goal\nThe user asked about the build.\n## Progress\nThe build writes a bundle.';

describe('shadowlog chat on a small local model', () => {
  let server: FakeProviderServer;
  let workspace: ReturnType<typeof createCliWorkspace>;
  const saved = { key: process.env.OPENAI_API_KEY, url: process.env.OPENAI_BASE_URL };
  beforeEach(async () => {
    server = await startFakeProviderServer({ contextWindow: WINDOW, maxOutputTokens: OUTPUT });
    workspace = createCliWorkspace();
    delete process.env.OPENAI_API_KEY;
    delete process.env.OPENAI_BASE_URL;
  });
  afterEach(async () => {
    await server.close();
    workspace.cleanup();
    if (saved.key !== undefined) process.env.OPENAI_API_KEY = saved.key;
    if (saved.url !== undefined) process.env.OPENAI_BASE_URL = saved.url;
  });

  const chat = (input: string, extra: string[] = []) =>
    workspace.run(
      [
        'chat',
        '--provider',
        'openai',
        '--model',
        'qwen-local',
        '--base-url',
        `${server.baseUrl}/v1`,
        '--context-window',
        String(WINDOW),
        '--max-output-tokens',
        String(OUTPUT),
        '--session',
        'small',
        ...extra,
      ],
      input,
    );

  it('compacts within the window: the summary asks for at most the output limit, and the chat says what it shadowed', async () => {
    // Four long answers pass the threshold; the fifth request is preceded by the summary's.
    for (const turn of [1, 2, 3, 4]) server.enqueue(answer(long(turn)));
    server.enqueue(answer(SUMMARY), answer('Five.'));
    const input = ['one', 'two', 'three', 'four', 'five', '/quit', ''].join('\n');
    const result = await chat(input);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(server.violations).toEqual([]);

    const bodies = server.requests.map(
      (request) => JSON.parse(request.body) as { stream?: boolean; max_tokens?: number; messages: unknown[]; tools?: unknown },
    );
    const summary = bodies.find((body) => body.stream !== true);
    // Before: max_tokens 8192 whatever the model's limits, which this server refuses.
    expect(summary?.max_tokens).toBe(OUTPUT);
    for (const body of bodies) expect(fakePromptTokens(body.messages, body.tools) + (body.max_tokens ?? 0)).toBeLessThanOrEqual(WINDOW);

    const notice = result.stdout.split('\n').find((line) => line.includes('── compacted'));
    expect(notice).toMatch(
      /^ {2}── compacted turns 1–\d, \d+ messages shadowed by #\d+: \d+ → \d+ tokens; \/surface shows it, \/record the originals$/,
    );
    const [before, after] = (notice?.match(/(\d+) → (\d+) tokens/) ?? []).slice(1).map(Number);
    expect(after).toBeLessThan(before as number);
    // The notice is the terminal's: the model's next request does not hold it.
    expect(server.requests.at(-1)?.body).not.toContain('── compacted');
    expect((await workspace.run(['verify', 'small'])).code).toBe(0);
  });

  it('says when it prunes a long tool result', async () => {
    writeFileSync(join(workspace.cwd, 'big.txt'), 'x'.repeat(12_000));
    const toolCall: FakeResponse = {
      type: 'sse',
      payloads: [
        JSON.stringify({
          id: 'c',
          object: 'chat.completion.chunk',
          model: 'qwen-local',
          choices: [
            {
              index: 0,
              delta: {
                role: 'assistant',
                tool_calls: [
                  { index: 0, id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"big.txt"}' } },
                ],
              },
              finish_reason: null,
            },
          ],
        }),
        JSON.stringify({
          id: 'c',
          object: 'chat.completion.chunk',
          model: 'qwen-local',
          choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }],
        }),
      ],
    };
    server.enqueue(toolCall, answer('It is all x.'));
    const result = await chat('read big.txt\n/quit\n');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /\n {2}── pruned 1 tool result to head and tail \(turn 1; the originals stay in the log\): \d+ → \d+ tokens\n/,
    );
    expect(server.violations).toEqual([]);
  });

  it("--preset dsh runs DSH's numbers as given: their headroom leaves a 4,096-token window no room, and nothing is sent", async () => {
    const result = await chat('one\n/quit\n', ['--preset', 'dsh']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/headroomTokens 65,536 leaves no pressure budget/);
    expect(server.requests).toEqual([]);
  });

  it('refuses an unknown preset, and a preset with --no-compaction, before anything is sent', async () => {
    const unknown = await chat('one\n/quit\n', ['--preset', 'small']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/INVALID_CONFIG: expected a compaction preset among dsh, found "small"/);
    const both = await chat('one\n/quit\n', ['--preset', 'dsh', '--no-compaction']);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/USAGE: --preset chooses the compaction policy and --no-compaction mounts none/);
    expect(server.requests).toEqual([]);
  });
});
