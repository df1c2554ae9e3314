// The session's surface sent back in the AI SDK's prompt form, for compaction at the log layer:
// a node that stands for a message of the app's current prompt is sent as the app's own message
// object (its provider options and file parts untouched); a node shadowlog wrote (a summary, a
// pruned result) is rendered from the log. Consecutive tool results become one tool message.

import type { LanguageModelV3Message, LanguageModelV3Prompt, LanguageModelV3ToolResultPart } from '@ai-sdk/provider';
import type { ContentBlock, ToolCall } from '../log/event.js';
import type { SurfaceNode } from '../log/surface-fold.js';
import type { PromptOrigin } from './prompt-messages.js';

type ToolMessage = Extract<LanguageModelV3Message, { role: 'tool' }>;
type UserPart = Extract<LanguageModelV3Message, { role: 'user' }>['content'][number];

/**
 * The prompt for `surface`. `origins` maps a seq to the prompt message (and part) it came from,
 * for the nodes that stand for the app's current messages.
 */
export function surfacePrompt(
  surface: readonly SurfaceNode[],
  origins: ReadonlyMap<number, PromptOrigin>,
  prompt: LanguageModelV3Prompt,
): LanguageModelV3Prompt {
  const out: LanguageModelV3Message[] = [];
  const toolNames = new Map<string, string>();
  let tool: ToolMessage | undefined;
  for (const node of surface) {
    const data = node.event.data as { content?: ContentBlock[]; toolCalls?: ToolCall[]; callId?: string; error?: unknown };
    if (node.type === 'assistant/message') for (const call of data.toolCalls ?? []) toolNames.set(call.callId, call.name);
    const origin = origins.get(node.seq);
    if (node.type === 'tool/result') {
      const part = toolPart(node, origin, prompt, toolNames);
      if (tool === undefined) {
        tool = { role: 'tool', content: [] };
        out.push(tool);
      }
      tool.content.push(part);
      continue;
    }
    tool = undefined;
    const own = origin === undefined ? undefined : prompt[origin.message];
    out.push(own ?? messageOf(node));
  }
  return out;
}

function toolPart(
  node: SurfaceNode,
  origin: PromptOrigin | undefined,
  prompt: LanguageModelV3Prompt,
  toolNames: ReadonlyMap<string, string>,
): LanguageModelV3ToolResultPart {
  if (origin?.part !== undefined) {
    const message = prompt[origin.message];
    const part = message?.role === 'tool' ? message.content[origin.part] : undefined;
    if (part?.type === 'tool-result') return part;
  }
  const data = node.event.data as unknown as { callId: string; content: ContentBlock[]; error?: unknown };
  const text = textOf(data.content);
  return {
    type: 'tool-result',
    toolCallId: data.callId,
    toolName: toolNames.get(data.callId) ?? 'unknown',
    output: data.error === undefined ? { type: 'text', value: text } : { type: 'error-text', value: text },
  };
}

function messageOf(node: SurfaceNode): LanguageModelV3Message {
  const data = node.event.data as unknown as { content: ContentBlock[]; toolCalls?: ToolCall[] };
  switch (node.type) {
    case 'system/message':
      return { role: 'system', content: textOf(data.content) };
    case 'assistant/message':
      return {
        role: 'assistant',
        content: [
          ...data.content.flatMap(
            (block): Array<{ type: 'text' | 'reasoning'; text: string }> =>
              block.type === 'text'
                ? [{ type: 'text', text: block.text }]
                : block.type === 'reasoning' && block.text !== undefined
                  ? [{ type: 'reasoning', text: block.text }]
                  : [],
          ),
          ...(data.toolCalls ?? []).map((call) => ({
            type: 'tool-call' as const,
            toolCallId: call.callId,
            toolName: call.name,
            input: call.arguments,
          })),
        ],
      };
    default:
      return { role: 'user', content: data.content.map(userPart) } satisfies LanguageModelV3Message;
  }
}

function userPart(block: ContentBlock): UserPart {
  if (block.type === 'image') {
    if (block.data === undefined) return { type: 'file', mediaType: block.mediaType ?? 'image/*', data: new URL(block.url) };
    return { type: 'file', mediaType: block.mediaType, data: block.data };
  }
  return { type: 'text', text: block.type === 'text' ? block.text : `[${block.type}]` };
}

function textOf(content: readonly ContentBlock[]): string {
  return content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n');
}
