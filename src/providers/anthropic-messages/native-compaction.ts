// Anthropic's server-side compaction (beta compact-2026-01-12): the shadowed messages sent to
// POST /v1/messages with the compact_20260112 edit of context management, paused after the
// compaction, so that the answer is the `compaction` block alone (stop_reason "compaction"),
// which later requests send back, first, in place of the messages it summarizes. Below its
// trigger (at least 50,000 input tokens) the server does not compact but answers: a failure here.

import type { CompactionBlock, JsonObject } from '../../log/event.js';
import { excerpt } from '../classify-http-error.js';
import type { RenderedRequest } from '../language-model.js';
import { NativeCompactionError, type NativeCompactionRequest, type NativeCompactionResult } from '../native-compaction.js';
import { UnknownRendererVersionError } from '../renderer-version.js';
import { isRecord, readArray, readNumber, readRecord, readString, type UnknownRecord } from '../response-fields.js';
import { createUsage } from '../usage.js';
import { convertToAnthropicBody } from './convert-messages.js';
import { mapAnthropicStreamError } from './map-error.js';
import { ANTHROPIC_REASONING_PROVIDER, anthropicMalformed, anthropicUsage } from './parse-response.js';
import { anthropicSettingsOf } from './renderer-versions.js';
import type { AnthropicMessagesBody } from './wire-types.js';

/** The beta header value compaction needs, on the compaction request and on every request that sends a compaction block back. */
export const ANTHROPIC_COMPACTION_BETA = 'compact-2026-01-12';
/** The smallest trigger the API takes: it compacts nothing smaller. */
export const ANTHROPIC_COMPACTION_MINIMUM_TRIGGER = 50_000;

const VERSION_PREFIX = 'anthropic-compact_20260112/1 ';

/** The compaction request's renderer version: its own, then the messages renderer's it wraps. */
export function anthropicCompactionRendererVersion(messagesVersion: string): string {
  return `${VERSION_PREFIX}${messagesVersion}`;
}

export function renderAnthropicCompaction(modelId: string, request: NativeCompactionRequest, version: string): RenderedRequest {
  if (!version.startsWith(VERSION_PREFIX)) {
    throw new UnknownRendererVersionError(
      'anthropic-compaction',
      version,
      `${VERSION_PREFIX}anthropic-messages/2;default_max_tokens=N[;no-cache]`,
    );
  }
  const settings = anthropicSettingsOf(version.slice(VERSION_PREFIX.length));
  const body: AnthropicMessagesBody = convertToAnthropicBody(
    modelId,
    { messages: request.messages, params: { tools: request.params.tools, stream: false } },
    settings,
  );
  // The trigger at its smallest: a manual compaction compacts whenever the server will.
  body.context_management = {
    edits: [
      {
        type: 'compact_20260112',
        trigger: { type: 'input_tokens', value: ANTHROPIC_COMPACTION_MINIMUM_TRIGGER },
        pause_after_compaction: true,
      },
    ],
  };
  return { body };
}

/** Whether a body needs the compaction beta: a compaction edit, or a compaction block sent back. */
export function needsCompactionBeta(body: JsonObject): boolean {
  if (body.context_management !== undefined) return true;
  const messages = body.messages;
  if (!Array.isArray(messages)) return false;
  return messages.some(
    (message) =>
      isRecord(message) &&
      Array.isArray(message.content) &&
      message.content.some((block) => isRecord(block) && block.type === 'compaction'),
  );
}

export function parseAnthropicCompaction(service: string, body: unknown): Omit<NativeCompactionResult, 'requestId'> {
  if (!isRecord(body)) throw anthropicMalformed(service, `a JSON value that is not an object: ${excerpt(JSON.stringify(body) ?? '')}`);
  if (body.type === 'error') throw mapAnthropicStreamError(service, JSON.stringify(body));
  const blocks = readArray(body, 'content');
  if (blocks === undefined) throw anthropicMalformed(service, `no content array in ${excerpt(JSON.stringify(body))}`);
  const found = blocks.filter((block): block is UnknownRecord => isRecord(block) && block.type === 'compaction');
  const stopReason = readString(body, 'stop_reason') ?? 'none';
  if (found.length === 0) {
    throw new NativeCompactionError(
      'anthropic',
      `${service} answered (stop_reason ${stopReason}) without compacting: the range is below its compaction trigger of ${ANTHROPIC_COMPACTION_MINIMUM_TRIGGER} input tokens, the smallest it takes; compact with strategy summary, or auto, which does below it`,
    );
  }
  if (found.length > 1) throw anthropicMalformed(service, `${found.length} compaction blocks in one answer`);
  const block = compactionBlockOf(service, found[0] as UnknownRecord);
  const responseId = readString(body, 'id');
  const usage = compactionUsage(readRecord(body, 'usage'));
  return { block, ...(usage === undefined ? {} : { usage }), ...(responseId === undefined ? {} : { responseId }) };
}

function compactionBlockOf(service: string, block: UnknownRecord): CompactionBlock {
  const content = block.content;
  if (content === null || content === undefined || content === '') {
    throw new NativeCompactionError(
      'anthropic',
      `${service} returned a compaction block without a summary (content ${JSON.stringify(content ?? null)}): its compaction failed; nothing was replaced`,
    );
  }
  if (typeof content !== 'string')
    throw anthropicMalformed(service, `a compaction block whose content is not text: ${excerpt(JSON.stringify(block))}`);
  const compaction: CompactionBlock = { type: 'compaction', provider: ANTHROPIC_REASONING_PROVIDER, text: content };
  const data = readString(block, 'encrypted_content');
  if (data !== undefined && data !== '') compaction.data = data;
  const signature = readString(block, 'signature');
  if (signature !== undefined) compaction.signature = signature;
  const changes = block.tool_changes;
  if (Array.isArray(changes)) {
    if (changes.length > 0) {
      throw new NativeCompactionError(
        'anthropic',
        `${service} returned a compaction whose range changed the tools (${changes.length} tool_changes); a session's tools do not change in shadowlog, so it cannot be sent back as it came`,
      );
    }
    compaction.toolChanges = [];
  } else if (changes !== undefined && changes !== null) {
    throw anthropicMalformed(service, `a compaction block whose tool_changes is not a list: ${excerpt(JSON.stringify(block))}`);
  }
  return compaction;
}

/** The compaction's own cost: its `compaction` iterations (the top-level usage leaves them out), else the top level. */
function compactionUsage(usage: UnknownRecord | undefined) {
  if (usage === undefined) return undefined;
  const iterations = (readArray(usage, 'iterations') ?? []).filter(
    (entry): entry is UnknownRecord => isRecord(entry) && entry.type === 'compaction',
  );
  if (iterations.length === 0) return anthropicUsage(usage);
  let input = 0;
  let output = 0;
  let cacheRead = 0;
  let cacheWrite = 0;
  for (const entry of iterations) {
    input += readNumber(entry, 'input_tokens') ?? 0;
    output += readNumber(entry, 'output_tokens') ?? 0;
    cacheRead += readNumber(entry, 'cache_read_input_tokens') ?? 0;
    cacheWrite += readNumber(entry, 'cache_creation_input_tokens') ?? 0;
  }
  return createUsage({
    inputTokens: input + cacheRead + cacheWrite,
    outputTokens: output,
    cacheReadTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
  });
}
