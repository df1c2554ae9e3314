// The attributes of each span: the OpenTelemetry GenAI semantic conventions (gen_ai.*), shadowlog's
// own (shadowlog.*: seqs, digests, what a compaction shadowed), and, when asked, the OpenInference
// attributes Arize Phoenix reads (openinference.span.kind, llm.*, session.id, tool.name).

import type { JsonObject, JsonValue, ModelRequestData, Usage } from '../log/index.js';
import type { SpanAttributes } from './span-types.js';

/** The GenAI provider name the conventions list for a shadowlog provider id; others as they are. */
export function genAiProviderName(provider: string): string {
  if (provider === 'openai' || provider.startsWith('openai-')) return 'openai';
  if (provider === 'anthropic' || provider.startsWith('anthropic-')) return 'anthropic';
  return provider;
}

function numberParam(params: JsonObject | undefined, keys: readonly string[]): number | undefined {
  if (params === undefined) return undefined;
  for (const key of keys) {
    const value = params[key];
    if (typeof value === 'number' && Number.isFinite(value)) return value;
  }
  return undefined;
}

/** gen_ai.request.* from a model/request's data. */
export function requestAttributes(data: ModelRequestData): SpanAttributes {
  const params = data.params;
  const attributes: SpanAttributes = {
    'gen_ai.operation.name': 'chat',
    'gen_ai.provider.name': genAiProviderName(data.provider),
    'gen_ai.request.model': data.model,
    'shadowlog.provider': data.provider,
    'shadowlog.turn': data.turn,
    'shadowlog.step': data.step,
  };
  const maxTokens = numberParam(params, ['maxOutputTokens', 'max_tokens', 'max_output_tokens', 'max_completion_tokens']);
  if (maxTokens !== undefined) attributes['gen_ai.request.max_tokens'] = maxTokens;
  const temperature = numberParam(params, ['temperature']);
  if (temperature !== undefined) attributes['gen_ai.request.temperature'] = temperature;
  const topP = numberParam(params, ['topP', 'top_p']);
  if (topP !== undefined) attributes['gen_ai.request.top_p'] = topP;
  if (typeof params?.stream === 'boolean') attributes['gen_ai.request.stream'] = params.stream;
  if (data.requestDigest !== undefined) attributes['shadowlog.request.digest'] = data.requestDigest;
  if (data.provenance !== undefined) attributes['shadowlog.request.provenance'] = data.provenance;
  if (data.estimatedTokens !== undefined) attributes['shadowlog.request.estimated_tokens'] = data.estimatedTokens;
  if (data.contextWindow !== undefined) attributes['shadowlog.request.context_window'] = data.contextWindow;
  if (data.rendererVersion !== undefined) attributes['shadowlog.request.renderer_version'] = data.rendererVersion;
  return attributes;
}

/** gen_ai.usage.* from the provider's counts. */
export function usageAttributes(usage: Usage | undefined): SpanAttributes {
  if (usage === undefined) return {};
  return {
    'gen_ai.usage.input_tokens': usage.inputTokens,
    'gen_ai.usage.output_tokens': usage.outputTokens,
    ...(usage.cacheReadTokens === undefined ? {} : { 'gen_ai.usage.cache_read.input_tokens': usage.cacheReadTokens }),
    ...(usage.cacheWriteTokens === undefined ? {} : { 'gen_ai.usage.cache_write.input_tokens': usage.cacheWriteTokens }),
    ...(usage.reasoningTokens === undefined ? {} : { 'gen_ai.usage.reasoning.output_tokens': usage.reasoningTokens }),
  };
}

/** The OpenInference attributes of a span, from its GenAI ones (Phoenix reads these). */
export function openInferenceAttributes(kind: string, sessionId: string, attributes: SpanAttributes, params?: JsonObject): SpanAttributes {
  const spanKind = { invoke_agent: 'AGENT', chat: 'LLM', execute_tool: 'TOOL' }[kind] ?? 'CHAIN';
  const result: SpanAttributes = { 'openinference.span.kind': spanKind, 'session.id': sessionId };
  const copy = (from: string, to: string) => {
    const value = attributes[from];
    if (value !== undefined) result[to] = value;
  };
  copy('gen_ai.request.model', 'llm.model_name');
  copy('gen_ai.provider.name', 'llm.provider');
  copy('gen_ai.usage.input_tokens', 'llm.token_count.prompt');
  copy('gen_ai.usage.output_tokens', 'llm.token_count.completion');
  copy('gen_ai.usage.cache_read.input_tokens', 'llm.token_count.prompt_details.cache_read');
  copy('gen_ai.usage.cache_write.input_tokens', 'llm.token_count.prompt_details.cache_write');
  copy('gen_ai.usage.reasoning.output_tokens', 'llm.token_count.completion_details.reasoning');
  copy('gen_ai.tool.name', 'tool.name');
  copy('gen_ai.tool.call.id', 'tool_call.id');
  const input = attributes['gen_ai.usage.input_tokens'];
  const output = attributes['gen_ai.usage.output_tokens'];
  if (typeof input === 'number' && typeof output === 'number') result['llm.token_count.total'] = input + output;
  if (params !== undefined) {
    // Tool definitions are the request's, not its parameters: Phoenix shows them apart.
    const { tools: _tools, ...rest } = params;
    result['llm.invocation_parameters'] = JSON.stringify(rest);
  }
  return result;
}

/** A JSON value as an attribute string. */
export function jsonAttribute(value: JsonValue): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}
