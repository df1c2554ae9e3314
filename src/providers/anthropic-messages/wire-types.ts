// The Anthropic Messages request body as this adapter writes it: every field it may send, typed,
// so that the renderer cannot write a body the API does not define (a test checks these types
// against the official SDK's parameter types). JSON only: type aliases, assignable to JsonObject.

import type { JsonObject, JsonValue } from '../../log/event.js';

export type AnthropicCacheControl = { type: 'ephemeral' };
/** The image types the API takes. */
export type AnthropicImageMediaType = 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp';

export type AnthropicTextBlock = { type: 'text'; text: string; cache_control?: AnthropicCacheControl };
export type AnthropicImageBlock = {
  type: 'image';
  source: { type: 'base64'; media_type: AnthropicImageMediaType; data: string } | { type: 'url'; url: string };
  cache_control?: AnthropicCacheControl;
};
export type AnthropicToolUseBlock = {
  type: 'tool_use';
  id: string;
  name: string;
  input: JsonObject;
  cache_control?: AnthropicCacheControl;
};
export type AnthropicToolResultBlock = {
  type: 'tool_result';
  tool_use_id: string;
  content?: Array<AnthropicTextBlock | AnthropicImageBlock>;
  is_error?: true;
  cache_control?: AnthropicCacheControl;
};
export type AnthropicThinkingBlock = { type: 'thinking'; thinking: string; signature: string };
export type AnthropicRedactedThinkingBlock = { type: 'redacted_thinking'; data: string };
/**
 * Anthropic's compaction block (beta compact-2026-01-12), sent back as it came: its summary, and
 * what else the server put on it. tool_changes goes back only as the empty list the server sent
 * (shadowlog's tools do not change within a session; the parser refuses others).
 */
export type AnthropicCompactionBlock = {
  type: 'compaction';
  content: string;
  encrypted_content?: string;
  signature?: string;
  tool_changes?: never[];
  cache_control?: AnthropicCacheControl;
};
export type AnthropicBlock =
  | AnthropicCompactionBlock
  | AnthropicTextBlock
  | AnthropicImageBlock
  | AnthropicToolUseBlock
  | AnthropicToolResultBlock
  | AnthropicThinkingBlock
  | AnthropicRedactedThinkingBlock;

export type AnthropicMessage = { role: 'user' | 'assistant'; content: AnthropicBlock[] };
export type AnthropicInputSchema = { type: 'object'; [key: string]: JsonValue };
export type AnthropicTool = {
  name: string;
  description: string;
  input_schema: AnthropicInputSchema;
  cache_control?: AnthropicCacheControl;
};
export type AnthropicToolChoice =
  | { type: 'auto'; disable_parallel_tool_use?: true }
  | { type: 'any'; disable_parallel_tool_use?: true }
  | { type: 'tool'; name: string; disable_parallel_tool_use?: true }
  | { type: 'none' };
export type AnthropicEffort = 'low' | 'medium' | 'high' | 'xhigh' | 'max';

/** The compaction edit of context management (beta compact-2026-01-12). */
export type AnthropicCompactEdit = {
  type: 'compact_20260112';
  trigger: { type: 'input_tokens'; value: number };
  pause_after_compaction: true;
};

export type AnthropicMessagesBody = {
  model: string;
  max_tokens: number;
  messages: AnthropicMessage[];
  system?: string | AnthropicTextBlock[];
  tools?: AnthropicTool[];
  tool_choice?: AnthropicToolChoice;
  temperature?: number;
  thinking?: { type: 'enabled'; budget_tokens: number };
  output_config?: { effort: AnthropicEffort };
  stream?: true;
  /** Only on a compaction request. */
  context_management?: { edits: [AnthropicCompactEdit] };
};
