// A one-off measurement: the extractive summary of a real pi session's first compaction range,
// to compare with the summary pi's own model wrote (1,139 tokens, as issue 10 reports). The
// session never reaches pi's trigger (W − 16,384 = 183,616 for a 200k window; its largest
// request is 177,604 tokens), so the range is pi's policy applied at that largest request:
// everything before a kept tail of about 20,000 tokens (pi's keepRecentTokens).
//
//   npx tsx scripts/measure-pi-summary.ts [test/fixtures/corpus/sessions/pi/large-session.jsonl]

import { readFileSync } from 'node:fs';
import { summarizeExtractively } from '../src/compaction/extractive-summarizer.js';
import { summaryTargetTokens } from '../src/compaction/summary-target.js';
import type { ContentBlock, ToolCall } from '../src/log/event.js';
import { scriptAwareEstimator } from '../src/meter/index.js';
import type { ModelMessage } from '../src/providers/language-model.js';

const KEEP_RECENT_TOKENS = 20_000;
const MAX_SUMMARY_TOKENS = 8_192;

interface PiBlock {
  type: string;
  text?: string;
  id?: string;
  name?: string;
  arguments?: unknown;
}
interface PiMessage {
  role: 'user' | 'assistant' | 'toolResult';
  content: PiBlock[] | string;
  toolCallId?: string;
  isError?: boolean;
  usage?: { input?: number; cacheRead?: number; cacheWrite?: number };
}

const file = process.argv[2] ?? new URL('../test/fixtures/corpus/sessions/pi/large-session.jsonl', import.meta.url).pathname;
const entries = readFileSync(file, 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => JSON.parse(line) as { type: string; message?: PiMessage });
const piMessages = entries.flatMap((entry) => (entry.type === 'message' && entry.message !== undefined ? [entry.message] : []));

const texts = (content: PiMessage['content']): ContentBlock[] =>
  typeof content === 'string'
    ? [{ type: 'text', text: content }]
    : content.flatMap((block) => (block.type === 'text' && block.text !== undefined ? [{ type: 'text' as const, text: block.text }] : []));

function toModelMessage(message: PiMessage): ModelMessage {
  if (message.role === 'user') return { role: 'user', content: texts(message.content) };
  if (message.role === 'toolResult')
    return { role: 'tool', callId: message.toolCallId ?? '', content: texts(message.content), isError: message.isError === true };
  const calls: ToolCall[] = (typeof message.content === 'string' ? [] : message.content)
    .filter((block) => block.type === 'toolCall')
    .map((block) => ({ callId: block.id ?? '', name: block.name ?? '', arguments: (block.arguments ?? {}) as ToolCall['arguments'] }));
  return { role: 'assistant', content: texts(message.content), toolCalls: calls };
}

const contextOf = (message: PiMessage) => (message.usage?.input ?? 0) + (message.usage?.cacheRead ?? 0) + (message.usage?.cacheWrite ?? 0);
const largest = piMessages.reduce(
  (best, message, index) => (contextOf(message) > contextOf(piMessages[best] as PiMessage) ? index : best),
  0,
);
const messages = piMessages.slice(0, largest).map(toModelMessage);
const count = (text: string) => scriptAwareEstimator.countText(text);
const priceOf = (message: ModelMessage) =>
  count(message.content.map((block) => (block.type === 'text' ? block.text : '')).join('\n')) +
  (message.role === 'assistant' ? message.toolCalls.reduce((sum, call) => sum + count(JSON.stringify(call.arguments)), 0) : 0);

// The cut: keep about KEEP_RECENT_TOKENS at the end, never starting on a tool result.
let tail = 0;
let cut = messages.length;
while (cut > 0 && tail + priceOf(messages[cut - 1] as ModelMessage) <= KEEP_RECENT_TOKENS) tail += priceOf(messages[--cut] as ModelMessage);
while (cut > 0 && messages[cut]?.role === 'tool') cut--;
const range = messages.slice(0, cut);
const rangeTokens = range.reduce((sum, message) => sum + priceOf(message), 0);
const summary = summarizeExtractively(range, {
  maxTokens: MAX_SUMMARY_TOKENS,
  countTokens: count,
  targetTokens: (tokens) => summaryTargetTokens(tokens, MAX_SUMMARY_TOKENS),
});
console.log(`largest request: ${contextOf(piMessages[largest] as PiMessage)} tokens reported, at message ${largest}`);
console.log(`range: ${range.length} messages, ${rangeTokens} tokens (script-aware), kept tail ${tail} tokens`);
console.log(
  `target: ${summaryTargetTokens(rangeTokens, MAX_SUMMARY_TOKENS)} tokens; extractive summary: ${summary?.outputTokens ?? 'none'} tokens (pi's model: 1,139)`,
);
if (process.argv.includes('--print')) console.log(summary?.text);
