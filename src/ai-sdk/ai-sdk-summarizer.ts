// A summarizer that is an AI SDK model: the compaction's fixed summary request (the same
// instruction and transcript the harness's model summarizer sends), asked through the model's
// doGenerate with no tools offered. The call goes through the AI SDK, not a shadowlog renderer,
// so its digest is that of the bytes the recorder's fetch saw (null when the model was not made
// with it).

import type { LanguageModelV3, LanguageModelV3Prompt } from '@ai-sdk/provider';
import { renderSections } from '../compaction/render-summary.js';
import { SUMMARY_REQUEST_VERSION, type Summarizer, sectionsOfAnswer, summaryRequest } from '../compaction/summarizer.js';
import type { ContentBlock } from '../log/event.js';
import type { ModelMessage } from '../providers/language-model.js';
import { nodeSha256HexOfBytes } from '../store/node-sha256.js';
import { StepCapture, withCapture } from './wire-capture.js';

export function createAiSdkSummarizer(model: LanguageModelV3): Summarizer {
  return {
    async summarize(request) {
      const earlier = request.earlierSummaries ?? [];
      const built = summaryRequest(request.messages, request.maxTokens, SUMMARY_REQUEST_VERSION, {
        earlierSummaryIndexes: earlier.map((summary) => summary.messageIndex),
      });
      const capture = new StepCapture();
      const result = await withCapture(capture, () =>
        model.doGenerate({ prompt: promptOf(built.messages), maxOutputTokens: request.maxTokens, abortSignal: request.signal }),
      );
      const answer = result.content
        .flatMap((part) => (part.type === 'text' ? [part.text] : []))
        .join('')
        .trim();
      const sections = sectionsOfAnswer(answer, earlier);
      const input = result.usage.inputTokens.total;
      const output = result.usage.outputTokens.total;
      const body = capture.result(true);
      return {
        text: answer === '' ? '' : renderSections(sections),
        sections,
        kind: 'model',
        provider: model.provider,
        model: model.modelId,
        usage: input === undefined || output === undefined ? null : { inputTokens: input, outputTokens: output },
        requestDigest: body.captured ? nodeSha256HexOfBytes(body.bytes) : null,
        rendererVersion: null,
        truncated: result.finishReason.unified === 'length',
      };
    },
  };
}

function promptOf(messages: readonly ModelMessage[]): LanguageModelV3Prompt {
  return messages.map((message) =>
    message.role === 'system'
      ? { role: 'system', content: textOf(message.content) }
      : { role: 'user', content: [{ type: 'text', text: textOf(message.content) }] },
  );
}

function textOf(content: readonly ContentBlock[]): string {
  return content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n');
}
