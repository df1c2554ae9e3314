// An OpenAI Responses request body as proxy messages: the instructions as the system message,
// then the input (a string, or items): messages by role, a run of output items (reasoning,
// assistant message, function calls) as one assistant message, call outputs as tool results,
// and a compaction item (the provider's encrypted summary, as Codex sends it) as a user message
// holding it. Items are read by the Codex importer's mappers: Codex records these same items.

import { codexContent, isOutputItem, outputContent, toolCallOf, toolOutput } from '../importers/codex/codex-items.js';
import { objectOf, type SourceObject, stringOf } from '../importers/source-values.js';
import type { ContentBlock } from '../log/event.js';
import { optionalTools, type ProxyMessage, type ProxyRequest, type ProxyToolCall } from './proxy-message.js';
import { RequestNotes, UnreadableRequestError } from './request-notes.js';

const PROVIDER = 'openai';

export function readOpenAIResponsesRequest(body: unknown): ProxyRequest {
  const request = objectOf(body);
  if (request === undefined) throw new UnreadableRequestError('the body is not a JSON object');
  const model = stringOf(request.model);
  if (model === undefined) throw new UnreadableRequestError('the body has no model');
  const input = request.input;
  if (typeof input !== 'string' && !Array.isArray(input))
    throw new UnreadableRequestError('the body has no input (a string or a list of items)');
  const notes = new RequestNotes();
  const messages: ProxyMessage[] = [];
  const instructions = stringOf(request.instructions);
  if (instructions !== undefined && instructions !== '')
    messages.push({ type: 'system/message', content: [{ type: 'text', text: instructions }] });
  if (typeof input === 'string') messages.push({ type: 'user/message', content: [{ type: 'text', text: input }] });
  else readItems(input, messages, notes);
  const previous = stringOf(request.previous_response_id);
  const cacheKey = stringOf(request.prompt_cache_key);
  // `conversation`: an id, or {id}.
  const conversation = stringOf(request.conversation) ?? stringOf(objectOf(request.conversation)?.id);
  return {
    model,
    stream: request.stream === true,
    messages,
    notes: notes.list,
    ...optionalTools(request.tools),
    ...(conversation === undefined ? {} : { serverConversation: conversation }),
    ...(cacheKey === undefined ? {} : { conversationKey: `openai prompt_cache_key ${cacheKey}` }),
    ...(previous === undefined ? {} : { previousResponseId: previous }),
  };
}

function readItems(items: readonly unknown[], messages: ProxyMessage[], notes: RequestNotes): void {
  let answer: { content: ContentBlock[]; toolCalls: ProxyToolCall[] } | undefined;
  const close = () => {
    if (answer !== undefined) messages.push({ type: 'assistant/message', ...answer });
    answer = undefined;
  };
  for (const [index, entry] of items.entries()) {
    const item = objectOf(entry);
    const where = notes.at(`input[${index}]`);
    if (item === undefined) {
      notes.add(`input[${index}] is not an object; it is left out`);
      continue;
    }
    // An item without a type is an easy input message ({role, content}).
    const typed: SourceObject = item.type === undefined && item.role !== undefined ? { ...item, type: 'message' } : item;
    if (isOutputItem(typed)) {
      answer ??= { content: [], toolCalls: [] };
      const call = toolCallOf(typed);
      if (call !== undefined) answer.toolCalls.push(call);
      else answer.content.push(...outputContent(typed, PROVIDER, 0, where));
      continue;
    }
    close();
    const message = otherItem(typed, where, notes, index);
    if (message !== undefined) messages.push(message);
  }
  close();
}

function otherItem(
  item: SourceObject,
  where: ReturnType<RequestNotes['at']>,
  notes: RequestNotes,
  index: number,
): ProxyMessage | undefined {
  switch (item.type) {
    case 'message': {
      const role = stringOf(item.role);
      const content = codexContent(item.content, 0, where);
      if (role === 'user') return { type: 'user/message', content };
      if (role === 'system' || role === 'developer') return { type: 'system/message', content };
      break;
    }
    case 'function_call_output':
    case 'custom_tool_call_output':
    case 'local_shell_call_output': {
      const callId = stringOf(item.call_id);
      if (callId === undefined) break;
      return { type: 'tool/result', callId, ...toolOutput(item.output, 0, where) };
    }
    case 'compaction':
    case 'compaction_summary': {
      const data = stringOf(item.encrypted_content);
      if (data === undefined) break;
      // The provider's opaque summary, sent back as it came: no block holds a compaction as such.
      return { type: 'user/message', content: [{ type: 'reasoning', provider: PROVIDER, data }] };
    }
  }
  notes.add(`input[${index}] (type ${JSON.stringify(item.type)}) is not an item shadowlog maps; it is left out`);
  return undefined;
}
