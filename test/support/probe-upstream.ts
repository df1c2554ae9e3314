// A fake OpenAI-compatible server on 127.0.0.1 that answers `tune --probe`'s questions from
// what it is sent, as a model with no memory beyond its request would: a recall cloze is filled
// from a line of the request that matches it (else "I cannot tell"), the files are the paths its
// messages name, the next step is the demo agent's (src/cli/demo/demo-agent.ts) on the surface,
// a decision is the answer that followed the request it names, if that answer is on the surface.
// As a judge it scores the share of the expected answer's words the given answer has, as JSON
// (or, with `judge: 'prose'`, in words no verdict parser reads). Anything else it answers 'I do
// not know'.

import { demoAgentReply } from '../../src/cli/demo/demo-agent.js';
import type { ModelMessage } from '../../src/providers/index.js';
import { modelMessageOf, type WireMessage } from './demo-agent-upstream.js';
import { type FakeProviderServer, type FakeResponse, type RecordedRequest, startFakeProviderServer } from './fake-provider-server.js';

export interface ProbeUpstreamOptions {
  /** How the judge answers: a JSON verdict (default), or prose that is no verdict. */
  readonly judge?: 'json' | 'prose';
}

export async function startProbeUpstream(options: ProbeUpstreamOptions = {}): Promise<FakeProviderServer> {
  const server = await startFakeProviderServer();
  const answer: FakeResponse = {
    type: 'computed',
    respond: (request) => {
      server.enqueue(answer);
      return completion(request, probeAnswer(request, options));
    },
  };
  server.enqueue(answer);
  return server;
}

const textOf = (message: ModelMessage) => message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
const wholeText = (message: ModelMessage) =>
  [textOf(message), ...(message.role === 'assistant' ? message.toolCalls.map((call) => JSON.stringify(call.arguments)) : [])].join('\n');

/** The answer to a probe or judge request, computed from its messages. */
export function probeAnswer(request: RecordedRequest, options: ProbeUpstreamOptions): string {
  const body = JSON.parse(request.body) as { messages: WireMessage[] };
  const messages = body.messages.map(modelMessageOf);
  const last = messages.at(-1);
  const question = last === undefined ? '' : textOf(last);
  const before = messages.slice(0, -1);
  if (question.startsWith('You are grading an answer')) return judge(question, options);
  if (question.includes('What stood where it says ____')) return recall(question, before);
  if (question.startsWith('Which files have been read or changed')) return files(before);
  if (question.startsWith('Before you go on: what is your next step?')) return nextStep(before);
  if (question.includes('What did you decide or conclude there')) return decision(question, before);
  return 'I do not know.';
}

function recall(question: string, before: readonly ModelMessage[]): string {
  const line = /this line:\n\n([\s\S]*?)\n\nWhat stood where/.exec(question)?.[1] ?? '';
  const [head = '', tail = ''] = line.replace(/^…|…$/g, '').split('____');
  const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const pattern = new RegExp(`${escaped(head.slice(-30))}([\\w./-]+?)${escaped(tail.slice(0, 30))}`);
  for (const message of before) {
    const found = pattern.exec(wholeText(message));
    if (found?.[1] !== undefined) return found[1];
  }
  return 'I cannot tell: that part of the session is not in what I was sent.';
}

function files(before: readonly ModelMessage[]): string {
  const paths = new Set<string>();
  for (const message of before) {
    const text = message.role === 'assistant' || textOf(message).includes('<compacted-summary>') ? wholeText(message) : '';
    for (const match of text.matchAll(/[\w.-]+(?:\/[\w.-]+)+|\b[\w-]+\.(?:ts|md|csv|json)\b/g)) paths.add(match[0]);
  }
  return paths.size === 0 ? 'I cannot tell which files were read.' : [...paths].join('\n');
}

function nextStep(before: readonly ModelMessage[]): string {
  const tools = ['list_files', 'read_file', 'search_files'].map((name) => ({ name }));
  const reply = demoAgentReply({ messages: before, body: { tools }, index: 0 });
  const call = reply.toolCalls?.[0];
  return call === undefined ? (reply.text ?? '') : `I would call ${call.name} with ${JSON.stringify(call.arguments)}.`;
}

function decision(question: string, before: readonly ModelMessage[]): string {
  const asked = /the user asked: "([\s\S]*?)"\. What did you decide/.exec(question)?.[1] ?? '';
  const at = before.findIndex((message) => message.role === 'user' && textOf(message).replace(/\s+/g, ' ').trim().startsWith(asked));
  const reply = at < 0 ? undefined : before.slice(at + 1).find((message) => message.role === 'assistant' && textOf(message) !== '');
  return reply === undefined ? 'I cannot tell: that part of the session is not in what I was sent.' : textOf(reply);
}

function judge(rubric: string, options: ProbeUpstreamOptions): string {
  if (options.judge === 'prose') return 'The answer looks mostly right to me.';
  const expected = /Expected answer \(from the record\):\n([\s\S]*?)\n\nGiven answer:/.exec(rubric)?.[1] ?? '';
  const given = /Given answer:\n([\s\S]*?)\n\nScore how/.exec(rubric)?.[1] ?? '';
  const words = (text: string) => new Set(text.toLowerCase().match(/[a-z0-9]{4,}/g) ?? []);
  const want = words(expected);
  const have = words(given);
  const shared = [...want].filter((word) => have.has(word)).length;
  const score = want.size === 0 ? 0 : Math.round((100 * shared) / want.size) / 100;
  return JSON.stringify({ score, reason: `the given answer has ${shared} of the expected answer's ${want.size} words` });
}

function completion(request: RecordedRequest, text: string): FakeResponse {
  const body = JSON.parse(request.body) as { model: string };
  const usage = { prompt_tokens: Math.ceil(request.body.length / 4), completion_tokens: Math.ceil(text.length / 4) };
  return {
    type: 'json',
    body: {
      id: 'chatcmpl-probe',
      object: 'chat.completion',
      created: 1,
      model: body.model,
      choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
      usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
    },
  };
}
