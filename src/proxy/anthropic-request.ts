// An Anthropic Messages request body as proxy messages: the system prompt (a string or text
// blocks), then each message; a user message's tool_result blocks become tool results (in their
// order) and the rest of its blocks one user message after them. Blocks are read by the Claude
// Code importer's mappers, which speak the same API.

import { claudeAssistantContent, claudeContent } from '../importers/claude-code/claude-content.js';
import { arrayOf, objectOf, stringOf } from '../importers/source-values.js';
import { optionalTools, type ProxyMessage, type ProxyRequest } from './proxy-message.js';
import { RequestNotes, UnreadableRequestError } from './request-notes.js';

export function readAnthropicRequest(body: unknown): ProxyRequest {
  const request = objectOf(body);
  if (request === undefined) throw new UnreadableRequestError('the body is not a JSON object');
  const model = stringOf(request.model);
  if (model === undefined) throw new UnreadableRequestError('the body has no model');
  if (!Array.isArray(request.messages)) throw new UnreadableRequestError('the body has no messages array');
  const notes = new RequestNotes();
  const messages: ProxyMessage[] = [];
  if (request.system !== undefined) {
    const content = claudeContent(request.system, 0, notes.at('system'), 'system');
    if (content.length > 0) messages.push({ type: 'system/message', content });
  }
  for (const [index, entry] of request.messages.entries()) {
    const message = objectOf(entry);
    const where = notes.at(`messages[${index}]`);
    if (message?.role === 'assistant') {
      const blocks = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : arrayOf(message.content);
      const { content, toolCalls } = claudeAssistantContent(blocks, 0, where);
      messages.push({ type: 'assistant/message', content, toolCalls });
    } else if (message?.role === 'user') {
      const blocks = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : arrayOf(message.content);
      const others: unknown[] = [];
      for (const item of blocks) {
        const block = objectOf(item);
        const callId = stringOf(block?.tool_use_id);
        if (block?.type === 'tool_result' && callId !== undefined) {
          messages.push({
            type: 'tool/result',
            callId,
            content: claudeContent(block.content ?? [], 0, where, 'tool result'),
            ...(block.is_error === true ? { error: true as const } : {}),
          });
        } else {
          others.push(item);
        }
      }
      if (others.length > 0) messages.push({ type: 'user/message', content: claudeContent(others, 0, where) });
    } else {
      notes.add(`messages[${index}] has role ${JSON.stringify(message?.role)}, which the Messages API does not have; it is left out`);
    }
  }
  const userId = stringOf(objectOf(request.metadata)?.user_id);
  return {
    model,
    stream: request.stream === true,
    messages,
    notes: notes.list,
    ...optionalTools(request.tools),
    ...(userId === undefined ? {} : { conversationKey: `anthropic metadata.user_id ${userId}` }),
  };
}
