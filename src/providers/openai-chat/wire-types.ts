// The chat-completions request body as this adapter writes it: every field it may send, typed,
// so that the renderer cannot write a body the API does not define (a test checks these types
// against the official SDK's parameter types). JSON only: type aliases, assignable to JsonObject.

import type { JsonObject } from '../../log/event.js';
import type { ReasoningEffort } from '../language-model.js';

export type ChatTextPart = { type: 'text'; text: string };
export type ChatImagePart = { type: 'image_url'; image_url: { url: string } };
export type ChatToolCall = { id: string; type: 'function'; function: { name: string; arguments: string } };

export type ChatSystemMessage = { role: 'system'; content: string | ChatTextPart[] };
export type ChatUserMessage = { role: 'user'; content: string | Array<ChatTextPart | ChatImagePart> };
/** `reasoning_content` is not in OpenAI's API: DeepSeek and other servers read it (renderer-versions.ts). */
export type ChatAssistantMessage = {
  role: 'assistant';
  content?: string | ChatTextPart[];
  tool_calls?: ChatToolCall[];
  reasoning_content?: string;
};
export type ChatToolMessage = { role: 'tool'; tool_call_id: string; content: string | ChatTextPart[] };
export type ChatMessage = ChatSystemMessage | ChatUserMessage | ChatAssistantMessage | ChatToolMessage;

export type ChatTool = { type: 'function'; function: { name: string; description: string; parameters: JsonObject } };
export type ChatToolChoice = 'auto' | 'none' | 'required' | { type: 'function'; function: { name: string } };

export type ChatCompletionsBody = {
  model: string;
  messages: ChatMessage[];
  tools?: ChatTool[];
  tool_choice?: ChatToolChoice;
  parallel_tool_calls?: boolean;
  max_completion_tokens?: number;
  max_tokens?: number;
  temperature?: number;
  reasoning_effort?: ReasoningEffort;
  stream?: true;
  stream_options?: { include_usage: true };
};
