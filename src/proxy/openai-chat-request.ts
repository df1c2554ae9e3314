// An OpenAI chat-completions request body as proxy messages: system and developer messages as
// system messages, user content (a string, or text and image parts), assistant messages with
// their tool calls, tool messages as tool results.

import { arrayOf, objectOf, stringOf } from '../importers/source-values.js';
import { type ContentBlock, imageBlockFromUrl } from '../log/content-block.js';
import type { JsonValue } from '../log/event.js';
import { argumentsFromText } from '../providers/tool-arguments.js';
import { optionalTools, type ProxyMessage, type ProxyRequest, type ProxyToolCall } from './proxy-message.js';
import { RequestNotes, UnreadableRequestError } from './request-notes.js';

export function readOpenAIChatRequest(body: unknown): ProxyRequest {
  const request = objectOf(body);
  if (request === undefined) throw new UnreadableRequestError('the body is not a JSON object');
  const model = stringOf(request.model);
  if (model === undefined) throw new UnreadableRequestError('the body has no model');
  if (!Array.isArray(request.messages)) throw new UnreadableRequestError('the body has no messages array');
  const notes = new RequestNotes();
  const messages: ProxyMessage[] = [];
  for (const [index, entry] of request.messages.entries()) {
    const message = objectOf(entry);
    const where = `messages[${index}]`;
    switch (message?.role) {
      case 'system':
      case 'developer':
        messages.push({ type: 'system/message', content: chatContent(message.content, where, notes) });
        break;
      case 'user':
        messages.push({ type: 'user/message', content: chatContent(message.content, where, notes) });
        break;
      case 'assistant': {
        const toolCalls = arrayOf(message.tool_calls).flatMap((call, position) =>
          chatToolCall(call, `${where}.tool_calls[${position}]`, notes),
        );
        const content = message.content === null || message.content === undefined ? [] : chatContent(message.content, where, notes);
        const refusal = stringOf(message.refusal);
        messages.push({
          type: 'assistant/message',
          content: refusal === undefined || refusal === '' ? content : [...content, { type: 'text', text: refusal }],
          toolCalls,
        });
        break;
      }
      case 'tool': {
        const callId = stringOf(message.tool_call_id);
        if (callId === undefined) notes.add(`${where}: a tool message without tool_call_id; it is left out`);
        else messages.push({ type: 'tool/result', callId, content: chatContent(message.content, where, notes) });
        break;
      }
      default:
        notes.add(`${where} has role ${JSON.stringify(message?.role)}, which shadowlog does not map; it is left out`);
    }
  }
  // prompt_cache_key names a conversation (Codex sets its thread id); `user` names an end user, whose every run shares it.
  const cacheKey = stringOf(request.prompt_cache_key);
  return {
    model,
    stream: request.stream === true,
    messages,
    notes: notes.list,
    ...optionalTools(request.tools),
    ...(cacheKey === undefined ? {} : { conversationKey: `openai prompt_cache_key ${cacheKey}` }),
  };
}

function chatContent(content: unknown, where: string, notes: RequestNotes): ContentBlock[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  const blocks: ContentBlock[] = [];
  for (const [index, item] of arrayOf(content).entries()) {
    const part = objectOf(item);
    const text = stringOf(part?.text);
    const url = stringOf(objectOf(part?.image_url)?.url);
    if (part?.type === 'text' && text !== undefined) blocks.push({ type: 'text', text });
    else if (part?.type === 'image_url' && url !== undefined && /^[A-Za-z][A-Za-z0-9+.-]*:/.test(url)) blocks.push(imageBlockFromUrl(url));
    else notes.add(`${where}.content[${index}] (type ${JSON.stringify(part?.type)}) is not a part shadowlog maps; it is left out`);
  }
  return blocks;
}

function chatToolCall(call: unknown, where: string, notes: RequestNotes): ProxyToolCall[] {
  const value = objectOf(call);
  const id = stringOf(value?.id);
  const fn = objectOf(value?.function);
  const name = stringOf(fn?.name);
  if (id === undefined || name === undefined) {
    notes.add(`${where}: a tool call without an id or a function name; it is left out`);
    return [];
  }
  const args = fn?.arguments;
  return [typeof args === 'string' ? { id, name, ...argumentsFromText(args, 'text') } : { id, name, arguments: (args ?? {}) as JsonValue }];
}
