// The Responses API request body as this adapter writes it: every field it may send, typed, so
// that the renderer cannot write a body the API does not define (a test checks these types
// against the official SDK's parameter types). JSON only: type aliases, assignable to JsonObject.

import type { JsonObject } from '../../log/event.js';
import type { ReasoningEffort } from '../language-model.js';

export type ResponsesInputText = { type: 'input_text'; text: string };
export type ResponsesInputImage = { type: 'input_image'; detail: 'auto'; image_url: string };
export type ResponsesInputPart = ResponsesInputText | ResponsesInputImage;

export type ResponsesMessage =
  | { type: 'message'; role: 'system' | 'user'; content: ResponsesInputPart[] }
  | { type: 'message'; role: 'assistant'; content: string };
export type ResponsesFunctionCall = { type: 'function_call'; call_id: string; name: string; arguments: string };
export type ResponsesFunctionCallOutput = { type: 'function_call_output'; call_id: string; output: string | ResponsesInputPart[] };
export type ResponsesReasoning = {
  type: 'reasoning';
  id: string;
  summary: Array<{ type: 'summary_text'; text: string }>;
  encrypted_content: string;
  content?: Array<{ type: 'reasoning_text'; text: string }>;
};
/** A compaction item (POST /v1/responses/compact), sent back as its encrypted content and id. */
export type ResponsesCompaction = { type: 'compaction'; encrypted_content: string; id?: string };
export type ResponsesItem =
  | ResponsesMessage
  | ResponsesFunctionCall
  | ResponsesFunctionCallOutput
  | ResponsesReasoning
  | ResponsesCompaction;

export type ResponsesTool = { type: 'function'; name: string; description: string; parameters: JsonObject; strict: false };
export type ResponsesToolChoice = 'auto' | 'none' | 'required' | { type: 'function'; name: string };

export type ResponsesBody = {
  model: string;
  input: ResponsesItem[];
  store: false;
  tools?: ResponsesTool[];
  tool_choice?: ResponsesToolChoice;
  parallel_tool_calls?: boolean;
  max_output_tokens?: number;
  temperature?: number;
  reasoning?: { effort: ReasoningEffort; summary: 'auto' };
  include?: Array<'reasoning.encrypted_content'>;
  stream?: true;
};

/** The body of POST /v1/responses/compact as this adapter writes it. */
export type ResponsesCompactBody = {
  model: string;
  input: ResponsesItem[];
};
