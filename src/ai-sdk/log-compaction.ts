// Compaction at the log layer for an AI SDK app: the capability the harness mounts
// (compaction/compaction-capability.ts: trigger, policy, lock and transaction), run before each
// model call on the recorder's session. The capability learns the model as a description (its
// provider, id and window); summaries are written by the extractive summarizer or by an AI SDK
// model, never by the description, which cannot send.

import type { LanguageModelV3 } from '@ai-sdk/provider';
import { type CompactionCapability, createCompaction } from '../compaction/compaction-capability.js';
import type { CompactionConfig } from '../compaction/policy.js';
import type { PrunerOptions } from '../compaction/pruner-config.js';
import { ToolResultPruner } from '../compaction/tool-result-pruner.js';
import { ConfigError } from '../log/errors.js';
import type { LogEvent } from '../log/event.js';
import { EventTypeRegistry } from '../log/event-types.js';
import type { LanguageModel } from '../providers/language-model.js';
import type { SessionLog } from '../store/session-log.js';
import { createAiSdkSummarizer } from './ai-sdk-summarizer.js';
import { RecorderSendsNothingError } from './recorder-errors.js';

export interface AiSdkCompactionOptions {
  /** The policy (SPEC §6): thresholdRatio, headroomTokens, retainRatio, … Unknown keys are refused. */
  readonly config?: CompactionConfig;
  /** Who writes summaries: 'extractive' (the default; no model call) or an AI SDK language model. */
  readonly summarizer?: 'extractive' | LanguageModelV3;
}

export interface ModelName {
  readonly provider: string;
  readonly modelId: string;
}

export class LogCompaction {
  readonly registry: EventTypeRegistry;
  private readonly capability: CompactionCapability;
  private mountedFor: string;
  private fixedText = '';

  constructor(
    options: AiSdkCompactionOptions,
    pruner: PrunerOptions | undefined,
    private readonly contextWindow: number,
    private readonly maxOutputTokens: number,
  ) {
    const summarizer = options.summarizer ?? 'extractive';
    if (
      summarizer !== 'extractive' &&
      (typeof summarizer !== 'object' || summarizer === null || typeof summarizer.doGenerate !== 'function')
    ) {
      throw new ConfigError(
        'compaction.summarizer',
        `compaction.summarizer must be 'extractive' or an AI SDK language model, found ${describe(summarizer)}`,
      );
    }
    if (options.config?.summarizer !== undefined) {
      throw new ConfigError(
        'compaction.config.summarizer',
        "the recorder's summarizer is chosen by compaction.summarizer ('extractive' or an AI SDK model); remove compaction.config.summarizer",
      );
    }
    const config = { ...(options.config ?? {}), summarizer: { kind: summarizer === 'extractive' ? 'extractive' : 'session-model' } };
    this.capability = createCompaction({
      config: config as CompactionConfig,
      ...(summarizer === 'extractive' ? {} : { summarizer: createAiSdkSummarizer(summarizer) }),
      ...(pruner === undefined ? {} : { pruner: new ToolResultPruner(pruner) }),
    });
    this.registry = new EventTypeRegistry(this.capability.eventTypes);
    // Mounted now, so that a policy that leaves no room in this window is refused before any call.
    this.mountedFor = '';
    this.mount({ provider: 'ai-sdk', modelId: 'any' });
  }

  observe(sessionId: string, event: LogEvent): void {
    this.capability.observe(sessionId, event);
  }

  /** The capability's beforeStep on the recorder's session, for the model the call goes to. */
  async beforeStep(
    context: { readonly sessionId: string; readonly log: SessionLog; readonly turn: number; readonly step: number },
    model: ModelName,
    fixedRequestText: string,
  ): Promise<void> {
    this.fixedText = fixedRequestText;
    this.mount(model);
    await this.capability.beforeStep({
      ...context,
      model: this.description(model),
      maxOutputTokens: this.maxOutputTokens,
      signal: new AbortController().signal,
    });
  }

  release(sessionId: string): void {
    this.capability.release(sessionId);
  }

  /** (Re)mounts for `model` when it is not the one mounted: its modelPolicies apply. */
  private mount(model: ModelName): void {
    const name = `${model.provider}\u0000${model.modelId}`;
    if (name === this.mountedFor) return;
    this.capability.mount({
      model: this.description(model),
      maxOutputTokens: this.maxOutputTokens,
      fixedRequestText: () => this.fixedText,
    });
    this.mountedFor = name;
  }

  private description(model: ModelName): LanguageModel {
    return {
      provider: model.provider,
      modelId: model.modelId,
      rendererVersion: 'ai-sdk',
      limits: { contextWindow: this.contextWindow, defaultMaxOutputTokens: this.maxOutputTokens },
      render() {
        throw new RecorderSendsNothingError('render a request');
      },
      send() {
        throw new RecorderSendsNothingError('send a request');
      },
    };
  }
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  return typeof value === 'object' ? 'an object without doGenerate' : (JSON.stringify(value) ?? typeof value);
}
