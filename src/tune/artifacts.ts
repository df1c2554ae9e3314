// Model-free retention: the artifacts a session's record shows it *using* — file paths,
// identifiers, error names and codes, numbers — found in the text of its events. An artifact
// is used at a call when the call's answer (its text or its tool calls' arguments) names an
// artifact that an earlier event introduced; it is kept when it is on the surface the policy
// sent at that call. Pure text matching, no model: a lower bound on what a summary must carry.

import { canonicalJson } from '../log/canonical-json.js';
import type { AssistantMessageData, ContentBlock, LogEvent, ToolResultData } from '../log/event.js';

export type ArtifactKind = 'path' | 'identifier' | 'error' | 'number';

const PATH =
  /(?<![\w@.+~/-])(?:~|\.{1,2})?\/?(?:[\w@.+-]+\/)+[\w@.+-]+|\b[\w-]+\.(?:tsx?|jsx?|mjs|cjs|py|rs|go|java|kt|rb|c|cc|cpp|h|hpp|cs|swift|md|json|jsonl|ya?ml|toml|sql|sh|css|html|txt|lock)\b/g;
const IDENTIFIER =
  /\b(?:[a-z][a-z0-9]*(?:[A-Z][a-z0-9]+)+|[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+|[a-z][a-z0-9]*(?:_[a-z0-9]+)+|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\b/g;
const ERROR = /\b(?:[A-Z][A-Za-z]*(?:Error|Exception)|E[A-Z]{3,}|TS\d{4}|[A-Z]{2,}\d{3,})\b/g;
const NUMBER = /(?<![\w.])\d+\.\d+(?:\.\d+)*(?![\w.])|(?<![\w.])\d{3,}(?![\w.])/g;

/** Artifacts of one text, as `kind:value` keys (a path's trailing dot or colon left out). */
export function artifactsOf(text: string, into: Set<string> = new Set()): Set<string> {
  if (text.length === 0) return into;
  for (const match of text.matchAll(PATH)) {
    const value = match[0].replace(/[.:,;]+$/, '');
    if (value.length >= 4 && !/^\d+(?:\/\d+)+$/.test(value) && !value.includes('://')) into.add(`path:${value}`);
  }
  for (const match of text.matchAll(IDENTIFIER)) if (match[0].length >= 5) into.add(`identifier:${match[0]}`);
  for (const match of text.matchAll(ERROR)) into.add(`error:${match[0]}`);
  for (const match of text.matchAll(NUMBER)) into.add(`number:${match[0]}`);
  return into;
}

export function kindOf(key: string): ArtifactKind {
  return key.slice(0, key.indexOf(':')) as ArtifactKind;
}

export function artifactValue(key: string): string {
  return key.slice(key.indexOf(':') + 1);
}

/** The text of content blocks (images have none). */
export function blocksText(blocks: readonly ContentBlock[] | undefined): string {
  if (!Array.isArray(blocks)) return '';
  let text = '';
  for (const block of blocks) if (block.type === 'text' && typeof block.text === 'string') text += `${block.text}\n`;
  return text;
}

/** All text of a surface event: content, tool calls' names and arguments, a result's error. */
export function eventText(event: LogEvent): string {
  const data = event.data as Partial<AssistantMessageData & ToolResultData>;
  let text = blocksText(data.content);
  if (event.type === 'assistant/message')
    for (const call of data.toolCalls ?? []) text += `${call.name} ${canonicalJson(call.arguments)}\n`;
  if (event.type === 'tool/result' && typeof data.error === 'object' && data.error !== null) text += data.error.message;
  return text;
}
