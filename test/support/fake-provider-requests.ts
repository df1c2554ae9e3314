// What the fake provider server refuses, so that it is stricter than the real servers: each
// request is checked as the API documents it (required fields, roles that alternate where the
// API requires it, at least one message, calls paired with their results, the
// anthropic-version header), and, when asked, as DeepSeek's thinking mode and Ollama check it.
// A check returns the problems it found, worded like the providers' own errors.

import type { IncomingHttpHeaders } from 'node:http';

export type FakeProtocol = 'openai' | 'anthropic' | 'responses' | 'responses-compact';

export interface FakeServerOptions {
  /** DeepSeek's thinking mode: an assistant message with tool calls must carry its reasoning_content back. */
  readonly deepseekThinking?: boolean;
  /** Ollama and vLLM: a tool call's arguments must be the text of a JSON object. */
  readonly objectArguments?: boolean;
  /**
   * A small local server's limits (llama.cpp, vLLM): a chat request whose prompt tokens (counted
   * here as ceil(characters / 4) of each message's text, plus 4 a message, and of the tools' JSON) and max_tokens pass
   * `contextWindow`, or whose max_tokens passes `maxOutputTokens`, is refused in vLLM's words.
   */
  readonly contextWindow?: number;
  readonly maxOutputTokens?: number;
}

/** The prompt tokens a fake server with limits counts for a chat request: its messages, and its tool definitions as JSON. */
export function fakePromptTokens(messages: readonly unknown[], tools?: unknown): number {
  let tokens = Array.isArray(tools) ? Math.ceil(JSON.stringify(tools).length / 4) : 0;
  for (const message of messages) {
    const content = isObject(message) ? message.content : undefined;
    const text =
      typeof content === 'string'
        ? content
        : Array.isArray(content)
          ? content.map((part) => (isObject(part) && typeof part.text === 'string' ? part.text : '')).join('')
          : '';
    tokens += 4 + Math.ceil(text.length / 4);
  }
  return tokens;
}

function checkLimits(body: Value, messages: readonly unknown[], options: FakeServerOptions): string[] {
  const requested = body.max_tokens ?? body.max_completion_tokens;
  const completion = typeof requested === 'number' ? requested : 0;
  const prompt = fakePromptTokens(messages, body.tools);
  const problems: string[] = [];
  if (options.maxOutputTokens !== undefined && completion > options.maxOutputTokens)
    problems.push(`max_tokens ${completion} is more than this model's output limit of ${options.maxOutputTokens} tokens`);
  if (options.contextWindow !== undefined && prompt + completion > options.contextWindow)
    problems.push(
      `This model's maximum context length is ${options.contextWindow} tokens. However, you requested ${prompt + completion} tokens (${prompt} in the messages, ${completion} in the completion). Please reduce the length of the messages or completion.`,
    );
  return problems;
}

type Value = Record<string, unknown>;

const isObject = (value: unknown): value is Value => typeof value === 'object' && value !== null && !Array.isArray(value);
const isText = (value: unknown): value is string => typeof value === 'string';
const isNonEmptyText = (value: unknown): value is string => typeof value === 'string' && value !== '';
const isPositiveInteger = (value: unknown) => typeof value === 'number' && Number.isSafeInteger(value) && value > 0;

export function checkRequest(protocol: FakeProtocol, headers: IncomingHttpHeaders, body: unknown, options: FakeServerOptions): string[] {
  if (!isObject(body)) return ['the request body must be a JSON object'];
  if (!isNonEmptyText(body.model)) return ['model: a model id is required'];
  switch (protocol) {
    case 'openai':
      return checkChat(body, options);
    case 'anthropic':
      return checkMessages(headers, body);
    case 'responses':
      return checkResponses(body);
    case 'responses-compact':
      return checkCompact(body);
  }
}

/** The parameters POST /v1/responses/compact takes (ResponseCompactParams): nothing that shapes an answer. */
const COMPACT_PARAMETERS = [
  'model',
  'input',
  'instructions',
  'previous_response_id',
  'prompt_cache_key',
  'prompt_cache_options',
  'prompt_cache_retention',
  'service_tier',
];

function checkCompact(body: Value): string[] {
  const unknown = Object.keys(body).filter((key) => !COMPACT_PARAMETERS.includes(key));
  if (unknown.length > 0) return unknown.map((key) => `Unknown parameter: '${key}'.`);
  if (body.input === undefined && body.previous_response_id === undefined) return ["'input' or 'previous_response_id' is required"];
  return checkResponses(body);
}

function checkChat(body: Value, options: FakeServerOptions): string[] {
  const problems: string[] = [];
  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length === 0) return ["'messages' must contain at least one message"];
  let open = new Set<string>();
  for (const [index, message] of messages.entries()) {
    const at = `messages[${index}]`;
    if (!isObject(message)) {
      problems.push(`${at}: a message object is required`);
      continue;
    }
    if (message.role !== 'tool' && open.size > 0) {
      problems.push(
        `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...open].join(', ')}`,
      );
      open = new Set();
    }
    switch (message.role) {
      case 'system':
      case 'developer':
      case 'user':
        if (!(isText(message.content) || (Array.isArray(message.content) && message.content.length > 0)))
          problems.push(`${at}.content: a string or a non-empty array of parts is required`);
        else if (Array.isArray(message.content)) problems.push(...chatParts(message.content, at, message.role === 'user'));
        break;
      case 'assistant': {
        const calls = message.tool_calls;
        if (calls !== undefined && !(Array.isArray(calls) && calls.length > 0))
          problems.push(`${at}.tool_calls: a non-empty array, or none`);
        const hasCalls = Array.isArray(calls) && calls.length > 0;
        if ((message.content === undefined || message.content === null) && !hasCalls)
          problems.push(`${at}: an assistant message needs content or tool_calls`);
        if (hasCalls) {
          if (options.deepseekThinking === true && !isText(message.reasoning_content))
            problems.push('The `reasoning_content` in the thinking mode must be passed back to the API.');
          for (const [position, call] of (calls as unknown[]).entries()) {
            const callAt = `${at}.tool_calls[${position}]`;
            const fn = isObject(call) ? call.function : undefined;
            if (!isObject(call) || !isNonEmptyText(call.id) || call.type !== 'function' || !isObject(fn) || !isNonEmptyText(fn.name)) {
              problems.push(`${callAt}: id, type 'function' and function.name are required`);
              continue;
            }
            if (!isText(fn.arguments)) problems.push(`${callAt}.function.arguments: a string is required`);
            else if (options.objectArguments === true && !isJsonObjectText(fn.arguments))
              problems.push(`${callAt}.function.arguments: invalid character in tool call arguments, expected a JSON object`);
            open.add(call.id);
          }
        }
        break;
      }
      case 'tool':
        if (!isText(message.tool_call_id) || !open.delete(message.tool_call_id))
          problems.push(`${at}: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'`);
        if (!(isText(message.content) || Array.isArray(message.content))) problems.push(`${at}.content: a string or an array is required`);
        break;
      default:
        problems.push(`${at}.role: one of system, developer, user, assistant, tool, found ${JSON.stringify(message.role)}`);
    }
  }
  if (open.size > 0) problems.push(`tool_call_ids without a tool message: ${[...open].join(', ')}`);
  if (body.stream_options !== undefined && body.stream !== true) problems.push("'stream_options' is only allowed when 'stream' is true");
  if (body.max_tokens !== undefined && body.max_completion_tokens !== undefined)
    problems.push("'max_tokens' and 'max_completion_tokens' cannot both be set");
  for (const key of ['max_tokens', 'max_completion_tokens'])
    if (body[key] !== undefined && !isPositiveInteger(body[key])) problems.push(`${key}: a positive integer`);
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools) || body.tools.length === 0) problems.push('tools: a non-empty array');
    else
      for (const tool of body.tools)
        if (!isObject(tool) || tool.type !== 'function' || !isObject(tool.function) || !isNonEmptyText(tool.function.name))
          problems.push('tools: each tool is {type: "function", function: {name, …}}');
  }
  if (body.parallel_tool_calls !== undefined && body.tools === undefined)
    problems.push("'parallel_tool_calls' is only allowed when 'tools' are specified");
  problems.push(...checkLimits(body, messages, options));
  return problems;
}

function chatParts(parts: readonly unknown[], at: string, imagesAllowed: boolean): string[] {
  return parts.flatMap((part, index) => {
    if (isObject(part) && part.type === 'text' && isText(part.text)) return [];
    if (imagesAllowed && isObject(part) && part.type === 'image_url' && isObject(part.image_url) && isText(part.image_url.url)) return [];
    return [`${at}.content[${index}]: a text part${imagesAllowed ? ' or an image_url part' : ''}`];
  });
}

function isJsonObjectText(text: string): boolean {
  try {
    return isObject(JSON.parse(text));
  } catch {
    return false;
  }
}

function checkMessages(headers: IncomingHttpHeaders, body: Value): string[] {
  const problems: string[] = [];
  if (headers['anthropic-version'] === undefined) problems.push('anthropic-version: header is required');
  if (!isPositiveInteger(body.max_tokens)) problems.push('max_tokens: Field required (a positive integer)');
  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length === 0) return [...problems, 'messages: at least one message is required'];
  let breakpoints = 0;
  const countBreakpoint = (block: Value) => {
    if (block.cache_control !== undefined) breakpoints++;
  };
  if (body.system !== undefined) {
    if (Array.isArray(body.system)) {
      for (const block of body.system) {
        if (!isObject(block) || block.type !== 'text' || !isNonEmptyText(block.text))
          problems.push('system: text blocks with non-empty text');
        else countBreakpoint(block);
      }
    } else if (!isText(body.system)) problems.push('system: a string or an array of text blocks');
  }
  if (Array.isArray(body.tools)) {
    for (const tool of body.tools) {
      if (!isObject(tool) || !isNonEmptyText(tool.name) || !isObject(tool.input_schema) || tool.input_schema.type !== 'object')
        problems.push('tools: each tool needs a name and an input_schema of type object');
      else countBreakpoint(tool);
    }
  }
  problems.push(...checkCompaction(headers, body, messages));
  // A conversation that starts from a compaction starts with the assistant message that holds it.
  let expected = startsWithCompaction(messages) ? 'assistant' : 'user';
  let pendingCalls: string[] = [];
  for (const [index, message] of messages.entries()) {
    const at = `messages.${index}`;
    if (!isObject(message) || (message.role !== 'user' && message.role !== 'assistant')) {
      problems.push(`${at}.role: Input should be 'user' or 'assistant'`);
      continue;
    }
    if (message.role !== expected)
      problems.push(
        index === 0
          ? 'messages: the first message must use the "user" role'
          : 'messages: roles must alternate between "user" and "assistant", but found multiple consecutive messages of one role',
      );
    expected = message.role === 'user' ? 'assistant' : 'user';
    const content = message.content;
    if (isText(content)) {
      if (content === '') problems.push(`${at}: all messages must have non-empty content`);
      if (pendingCalls.length > 0) problems.push(toolResultsMissing(index, pendingCalls));
      pendingCalls = [];
      continue;
    }
    if (!Array.isArray(content) || content.length === 0) {
      problems.push(`${at}: all messages must have non-empty content`);
      continue;
    }
    const answered: string[] = [];
    let afterResults = false;
    for (const [position, block] of content.entries()) {
      const blockAt = `${at}.content.${position}`;
      if (!isObject(block)) {
        problems.push(`${blockAt}: a content block object`);
        continue;
      }
      countBreakpoint(block);
      problems.push(...checkBlock(block, blockAt, message.role));
      if (block.type === 'tool_result') {
        if (afterResults) problems.push(`${at}: tool_result blocks must come first in the content, before any other block`);
        if (isText(block.tool_use_id)) answered.push(block.tool_use_id);
      } else afterResults = true;
    }
    if (message.role === 'user') {
      for (const id of answered)
        if (!pendingCalls.includes(id))
          problems.push(
            `${at}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
          );
      const missing = pendingCalls.filter((id) => !answered.includes(id));
      if (missing.length > 0) problems.push(toolResultsMissing(index, missing));
      pendingCalls = [];
    } else {
      if (pendingCalls.length > 0) problems.push(toolResultsMissing(index, pendingCalls));
      pendingCalls = content.flatMap((block) => (isObject(block) && block.type === 'tool_use' && isText(block.id) ? [block.id] : []));
    }
  }
  if (breakpoints > 4) problems.push(`A maximum of 4 blocks with cache_control may be provided. Found ${breakpoints}.`);
  problems.push(...checkThinking(body, messages));
  return problems;
}

function startsWithCompaction(messages: readonly unknown[]): boolean {
  const first = messages[0];
  const block = isObject(first) && Array.isArray(first.content) ? first.content[0] : undefined;
  return isObject(block) && block.type === 'compaction';
}

const COMPACTION_BETA = 'compact-2026-01-12';
const MINIMUM_TRIGGER = 50_000;

/**
 * Compaction (beta compact-2026-01-12): the beta header with the edit or a compaction block; the
 * edit's trigger at 50,000 input tokens or more; a compaction block only as the first block of
 * the conversation, in an assistant message, at most one with content, and never empty.
 */
function checkCompaction(headers: IncomingHttpHeaders, body: Value, messages: readonly unknown[]): string[] {
  const problems: string[] = [];
  const betas = String(headers['anthropic-beta'] ?? '')
    .split(',')
    .map((beta) => beta.trim());
  const blocks = messages.flatMap((message, index) =>
    isObject(message) && Array.isArray(message.content)
      ? message.content.flatMap((block, position) => (isObject(block) ? [{ block, index, position, role: message.role }] : []))
      : [],
  );
  const compactions = blocks.filter(({ block }) => block.type === 'compaction');
  if ((body.context_management !== undefined || compactions.length > 0) && !betas.includes(COMPACTION_BETA))
    problems.push(`compaction requires the anthropic-beta header ${COMPACTION_BETA}`);
  if (body.context_management !== undefined) problems.push(...checkContextManagement(body.context_management));
  for (const { block, index, position, role } of compactions) {
    const at = `messages.${index}.content.${position}`;
    if (index !== 0 || position !== 0 || role !== 'assistant')
      problems.push(
        `${at}: compaction_block_misplaced: a compaction block must be the first block of the conversation, in an assistant message`,
      );
    if (block.content !== null && !isNonEmptyText(block.content))
      problems.push(`${at}.content: the summary of a compaction block is a non-empty string, or null`);
    for (const key of Object.keys(block))
      if (!['type', 'content', 'encrypted_content', 'signature', 'tool_changes', 'cache_control'].includes(key))
        problems.push(`${at}.${key}: Extra inputs are not permitted`);
  }
  if (compactions.filter(({ block }) => block.content !== null).length > 1)
    problems.push('compaction_block_ambiguous: messages hold more than one compaction block with content; send only the latest');
  return problems;
}

function checkContextManagement(value: unknown): string[] {
  if (!isObject(value) || !Array.isArray(value.edits)) return ['context_management.edits: a list of edits'];
  return value.edits.flatMap((edit, index) => {
    const at = `context_management.edits.${index}`;
    if (!isObject(edit) || edit.type !== 'compact_20260112') return [`${at}.type: this fake knows only compact_20260112`];
    const problems = Object.keys(edit)
      .filter((key) => !['type', 'trigger', 'pause_after_compaction', 'instructions'].includes(key))
      .map((key) => `${at}.${key}: Extra inputs are not permitted`);
    const trigger = edit.trigger;
    if (trigger !== undefined && trigger !== null) {
      if (!isObject(trigger) || trigger.type !== 'input_tokens' || !isPositiveInteger(trigger.value))
        problems.push(`${at}.trigger: {type: 'input_tokens', value: a positive integer}`);
      else if ((trigger.value as number) < MINIMUM_TRIGGER)
        problems.push(`${at}.trigger.value: Input should be greater than or equal to ${MINIMUM_TRIGGER}`);
    }
    if (edit.pause_after_compaction !== undefined && typeof edit.pause_after_compaction !== 'boolean')
      problems.push(`${at}.pause_after_compaction: a boolean`);
    return problems;
  });
}

function toolResultsMissing(index: number, ids: readonly string[]): string {
  return `messages.${index}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${ids.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
}

function checkBlock(block: Value, at: string, role: 'user' | 'assistant'): string[] {
  switch (block.type) {
    case 'text':
      return isNonEmptyText(block.text) ? [] : [`${at}.text: text content blocks must be non-empty`];
    case 'image':
      return role === 'user' && isObject(block.source) ? [] : [`${at}: an image block belongs in a user message, with a source`];
    case 'tool_use':
      return role === 'assistant' && isNonEmptyText(block.id) && isNonEmptyText(block.name) && isObject(block.input)
        ? []
        : [`${at}: a tool_use block belongs in an assistant message, with an id, a name and an input object`];
    case 'tool_result':
      return role === 'user' && isNonEmptyText(block.tool_use_id)
        ? []
        : [`${at}: a tool_result block belongs in a user message, with a tool_use_id`];
    case 'thinking':
      if (block.cache_control !== undefined) return [`${at}: thinking blocks cannot be marked with cache_control`];
      return role === 'assistant' && isText(block.thinking) && isNonEmptyText(block.signature)
        ? []
        : [`${at}.signature: Field required (a thinking block goes back with its signature)`];
    case 'redacted_thinking':
      return role === 'assistant' && isNonEmptyText(block.data) ? [] : [`${at}.data: Field required`];
    case 'compaction':
      return []; // checkCompaction's rules
    default:
      return [`${at}.type: unknown content block type ${JSON.stringify(block.type)}`];
  }
}

/** With thinking on: a budget below max_tokens, no temperature, and a final tool-using assistant turn that starts with its thinking. */
function checkThinking(body: Value, messages: readonly unknown[]): string[] {
  const thinking = body.thinking;
  if (!isObject(thinking) || thinking.type !== 'enabled') return [];
  const problems: string[] = [];
  const budget = thinking.budget_tokens;
  if (!isPositiveInteger(budget) || (budget as number) < 1024)
    problems.push('thinking.budget_tokens: Input should be greater than or equal to 1024');
  else if (isPositiveInteger(body.max_tokens) && (budget as number) >= (body.max_tokens as number))
    problems.push('`max_tokens` must be greater than `thinking.budget_tokens`');
  if (body.temperature !== undefined && body.temperature !== 1)
    problems.push('`temperature` may only be set to 1 when thinking is enabled');
  const lastAssistant = [...messages].reverse().find((message) => isObject(message) && message.role === 'assistant');
  const content = isObject(lastAssistant) && Array.isArray(lastAssistant.content) ? lastAssistant.content : [];
  const first = content[0];
  if (
    content.some((block) => isObject(block) && block.type === 'tool_use') &&
    !(isObject(first) && (first.type === 'thinking' || first.type === 'redacted_thinking'))
  )
    problems.push(
      'Expected `thinking` or `redacted_thinking`, but found `tool_use`. When `thinking` is enabled, a final `assistant` message must start with a thinking block.',
    );
  return problems;
}

function checkResponses(body: Value): string[] {
  const problems: string[] = [];
  const input = body.input;
  if (isNonEmptyText(input)) return problems;
  if (!Array.isArray(input) || input.length === 0) return ["'input' must be a non-empty string or array"];
  const calls = new Set<string>();
  const answered = new Set<string>();
  for (const [index, item] of input.entries()) {
    const at = `input[${index}]`;
    if (!isObject(item)) {
      problems.push(`${at}: an input item object`);
      continue;
    }
    const type = item.type ?? 'message';
    switch (type) {
      case 'message':
        if (!['user', 'assistant', 'system', 'developer'].includes(item.role as string))
          problems.push(`${at}.role: user, assistant, system or developer`);
        if (!(isText(item.content) || (Array.isArray(item.content) && item.content.length > 0)))
          problems.push(`${at}.content: a string or a non-empty array`);
        break;
      case 'function_call':
        if (!isNonEmptyText(item.call_id) || !isNonEmptyText(item.name) || !isText(item.arguments))
          problems.push(`${at}: call_id, name and arguments (a string) are required`);
        else calls.add(item.call_id);
        break;
      case 'function_call_output':
        if (!isText(item.call_id) || !calls.has(item.call_id))
          problems.push(`${at}: No tool call found for function call output with call_id ${String(item.call_id)}.`);
        else answered.add(item.call_id);
        if (!(isText(item.output) || Array.isArray(item.output))) problems.push(`${at}.output: a string or an array`);
        break;
      case 'compaction':
        // What a compaction left (the compact endpoint's item; Codex sends it back in its replacement history): opaque to all but the server.
        if (!isNonEmptyText(item.encrypted_content))
          problems.push(`${at}.encrypted_content: a compaction item goes back with its encrypted_content`);
        if (item.id !== undefined && !isNonEmptyText(item.id)) problems.push(`${at}.id: a string`);
        break;
      case 'reasoning':
        if (!isNonEmptyText(item.id) || !Array.isArray(item.summary)) problems.push(`${at}: id and summary are required`);
        if (body.store === false && !isText(item.encrypted_content))
          problems.push(`Item with id '${String(item.id)}' not found. Items are not persisted when \`store\` is set to false.`);
        break;
      default:
        problems.push(`${at}.type: unknown input item type ${JSON.stringify(type)}`);
    }
  }
  for (const id of calls) if (!answered.has(id)) problems.push(`No tool output found for function call ${id}.`);
  if (Array.isArray(body.tools))
    for (const tool of body.tools)
      if (!isObject(tool) || tool.type !== 'function' || !isNonEmptyText(tool.name))
        problems.push('tools: each tool is {type: "function", name, …}');
  if (body.max_output_tokens !== undefined && !isPositiveInteger(body.max_output_tokens))
    problems.push('max_output_tokens: a positive integer');
  return problems;
}

/** A refusal as the protocol words its errors. */
export function refusalBody(protocol: FakeProtocol, problems: readonly string[]): unknown {
  const message = `fake provider server refused the request: ${problems.join('; ')}`;
  if (protocol === 'anthropic') return { type: 'error', error: { type: 'invalid_request_error', message } };
  return { error: { message, type: 'invalid_request_error', param: null, code: null } };
}
