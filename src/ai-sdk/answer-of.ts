// A provider's answer in shadowlog's terms (ModelResult, as the proxy records one): from a
// doGenerate result, or collected from a doStream's parts as they pass by. The collector only
// pushes onto arrays per chunk; the answer is assembled once, when the stream ends.

import type {
  LanguageModelV3Content,
  LanguageModelV3FinishReason,
  LanguageModelV3GenerateResult,
  LanguageModelV3StreamPart,
  LanguageModelV3Usage,
} from '@ai-sdk/provider';
import type { ContentBlock, ToolCall } from '../log/event.js';
import type { FinishReason, ModelResult, ModelUsage } from '../providers/language-model.js';
import { argumentsOfText } from './tool-input.js';

export function answerOfGenerate(result: LanguageModelV3GenerateResult): ModelResult {
  return assemble(result.content, result.finishReason, result.usage, result.response?.modelId, result.response?.id);
}

function assemble(
  parts: readonly LanguageModelV3Content[],
  finish: LanguageModelV3FinishReason | undefined,
  usage: LanguageModelV3Usage | undefined,
  modelId: string | undefined,
  responseId: string | undefined,
): ModelResult {
  const content: ContentBlock[] = [];
  const toolCalls: ToolCall[] = [];
  for (const part of parts) {
    if (part.type === 'text') {
      const last = content[content.length - 1];
      if (last?.type === 'text') content[content.length - 1] = { type: 'text', text: last.text + part.text };
      else content.push({ type: 'text', text: part.text });
    } else if (part.type === 'reasoning') content.push({ type: 'reasoning', provider: 'ai-sdk', text: part.text });
    else if (part.type === 'tool-call' && part.providerExecuted !== true)
      toolCalls.push({ callId: part.toolCallId, name: part.toolName, ...argumentsOfText(part.input) });
  }
  const mapped = usageOf(usage);
  return {
    content: content.filter((block) => block.type !== 'text' || block.text !== ''),
    toolCalls,
    finishReason: finishOf(finish),
    ...(mapped === undefined ? {} : { usage: mapped }),
    ...(modelId === undefined ? {} : { responseModel: modelId }),
    ...(responseId === undefined ? {} : { responseId }),
  };
}

function finishOf(finish: LanguageModelV3FinishReason | undefined): FinishReason {
  switch (finish?.unified) {
    case 'stop':
    case 'length':
    case 'content-filter':
    case 'tool-calls':
      return finish.unified;
    default:
      return 'other';
  }
}

function usageOf(usage: LanguageModelV3Usage | undefined): ModelUsage | undefined {
  const input = usage?.inputTokens.total;
  const output = usage?.outputTokens.total;
  if (usage === undefined || input === undefined || output === undefined) return undefined;
  const { cacheRead, cacheWrite } = usage.inputTokens;
  const reasoning = usage.outputTokens.reasoning;
  return {
    inputTokens: input,
    outputTokens: output,
    ...(cacheRead === undefined ? {} : { cacheReadTokens: cacheRead }),
    ...(cacheWrite === undefined ? {} : { cacheWriteTokens: cacheWrite }),
    ...(reasoning === undefined ? {} : { reasoningTokens: reasoning }),
  };
}

/** Collects a stream's parts as they pass; `answer()` once it ended. */
export class StreamCollector {
  private readonly parts: LanguageModelV3Content[] = [];
  private text: string[] = [];
  private reasoning: string[] = [];
  private finish: LanguageModelV3FinishReason | undefined;
  private usage: LanguageModelV3Usage | undefined;
  private modelId: string | undefined;
  private responseId: string | undefined;
  /** The error part the stream carried, if any. */
  error: unknown;
  finished = false;

  add(part: LanguageModelV3StreamPart): void {
    switch (part.type) {
      case 'text-delta':
        this.text.push(part.delta);
        return;
      case 'text-end':
        this.flushText();
        return;
      case 'reasoning-delta':
        this.reasoning.push(part.delta);
        return;
      case 'reasoning-end':
        this.flushReasoning();
        return;
      case 'tool-call':
        this.flushText();
        this.parts.push(part);
        return;
      case 'response-metadata':
        this.modelId = part.modelId ?? this.modelId;
        this.responseId = part.id ?? this.responseId;
        return;
      case 'finish':
        this.finish = part.finishReason;
        this.usage = part.usage;
        this.finished = true;
        return;
      case 'error':
        this.error = part.error;
        return;
      default:
        return;
    }
  }

  answer(): ModelResult {
    this.flushReasoning();
    this.flushText();
    return assemble(this.parts, this.finish, this.usage, this.modelId, this.responseId);
  }

  private flushText(): void {
    if (this.text.length === 0) return;
    this.parts.push({ type: 'text', text: this.text.join('') });
    this.text = [];
  }

  private flushReasoning(): void {
    if (this.reasoning.length === 0) return;
    this.parts.push({ type: 'reasoning', text: this.reasoning.join('') });
    this.reasoning = [];
  }
}
