// Turns sentences into candidate lines: each gets a section, and a priority from what it
// contains (its tier), then its salience, role and position. A tool output offers only its
// best few lines.

import type { SectionId, SummaryItem } from './assemble.js';
import { type Entity, entitiesOf } from './entities.js';
import { featuresOf, type SentenceFeatures } from './features.js';
import { priorityOf, recencyOf, TIER, type Tier } from './priority.js';
import type { SourceRole } from './read-messages.js';
import type { Sentence } from './sentences.js';
import { truncateGraphemes } from './unicode.js';

/** What a user says steers the work; tool output is mostly evidence. */
const ROLE_WEIGHT: Readonly<Record<SourceRole, number>> = { user: 1.5, assistant: 1, system: 0.7, tool: 0.6 };
/** A tool result offers at most this many error lines and this many others: long outputs are evidence, not story. */
const ERROR_LINES_PER_TOOL_RESULT = 4;
const OTHER_LINES_PER_TOOL_RESULT = 2;
const SHOWN_GRAPHEMES = 240;

export interface Candidate {
  readonly sentence: Sentence;
  readonly entities: readonly Entity[];
  readonly features: SentenceFeatures;
  readonly section: SectionId;
  readonly priority: number;
}

function sectionOf(features: SentenceFeatures, isErrorHead: boolean): SectionId {
  if (features.resolution || features.error === 'strong' || isErrorHead) return 'errors';
  if (features.todo) return 'todos';
  if (features.decision !== 'none') return 'decisions';
  return features.error === 'weak' ? 'errors' : 'other';
}

function tierOf(features: SentenceFeatures, isErrorHead: boolean, role: SourceRole, mentionsEntities: boolean): Tier {
  if (features.resolution || features.error === 'strong' || isErrorHead) return TIER.essential;
  // What the user said between the first and the latest request still steers the work.
  if (features.decision === 'firm' || features.todo || role === 'user') return TIER.key;
  if (features.decision === 'intent' || features.error === 'weak' || features.quantity || mentionsEntities) return TIER.supporting;
  return TIER.plain;
}

/** How many kinds of thing the sentence carries: within a tier, a denser line wins. */
function densityOf(features: SentenceFeatures, mentionsEntities: boolean): number {
  const kinds = [
    features.error !== 'none',
    features.resolution,
    features.decision !== 'none',
    features.todo,
    features.quantity,
    mentionsEntities,
  ];
  return kinds.filter(Boolean).length;
}

/**
 * A failed tool result whose text has no error words ("Permission check rejected the call")
 * still failed: its first line stands for the error.
 */
function errorHeads(sentences: readonly Sentence[], features: readonly SentenceFeatures[]): Set<Sentence> {
  const worded = new Set<number>();
  sentences.forEach((sentence, index) => {
    if (sentence.inErrorResult && features[index]?.error !== 'none') worded.add(sentence.messageIndex);
  });
  return new Set(sentences.filter((sentence) => sentence.inErrorResult && sentence.isFirst && !worded.has(sentence.messageIndex)));
}

/** Keeps only each tool result's best few error lines and best few others. */
function capToolResults(candidates: readonly Candidate[]): Candidate[] {
  const byToolResult = new Map<number, Candidate[]>();
  for (const candidate of candidates) {
    if (candidate.sentence.role !== 'tool') continue;
    const group = byToolResult.get(candidate.sentence.messageIndex) ?? [];
    group.push(candidate);
    byToolResult.set(candidate.sentence.messageIndex, group);
  }
  const dropped = new Set<Candidate>();
  for (const group of byToolResult.values()) {
    const ranked = [...group].sort(
      (first, second) => second.priority - first.priority || first.sentence.position - second.sentence.position,
    );
    // Repeats of a kept line stay (they become its count) but take no slot of their own.
    const kept = new Set<string>();
    const slots = { errors: ERROR_LINES_PER_TOOL_RESULT, others: OTHER_LINES_PER_TOOL_RESULT };
    for (const candidate of ranked) {
      const key = normalized(candidate.sentence.text);
      if (kept.has(key)) continue;
      const slot = candidate.section === 'errors' ? 'errors' : 'others';
      if (slots[slot] === 0) dropped.add(candidate);
      else {
        slots[slot] -= 1;
        kept.add(key);
      }
    }
  }
  return candidates.filter((candidate) => !dropped.has(candidate));
}

/** Scores every sentence by salience, role, recency and content; tool results offer only their best lines. */
export function rankSentences(sentences: readonly Sentence[], salience: readonly number[], lastMessageIndex: number): Candidate[] {
  const features = sentences.map((sentence) => featuresOf(sentence.text));
  const heads = errorHeads(sentences, features);
  const candidates = sentences.map((sentence, index): Candidate => {
    const found = features[index] as SentenceFeatures;
    const isErrorHead = heads.has(sentence);
    const entities = entitiesOf(sentence.text);
    const mentionsEntities = entities.length > 0;
    const score =
      ROLE_WEIGHT[sentence.role] *
      recencyOf(sentence.messageIndex, lastMessageIndex) *
      (0.5 + (salience[index] ?? 0) + 0.2 * densityOf(found, mentionsEntities));
    const priority = priorityOf(tierOf(found, isErrorHead, sentence.role, mentionsEntities), score);
    return { sentence, entities, features: found, section: sectionOf(found, isErrorHead), priority };
  });
  return capToolResults(candidates);
}

function tagOf(sentence: Sentence): string {
  if (sentence.role !== 'tool') return sentence.role;
  return sentence.toolName === undefined ? 'tool output' : `${sentence.toolName} output`;
}

function normalized(text: string): string {
  return text.toLowerCase().replace(/\s+/g, ' ').trim();
}

/** One item per distinct sentence; a sentence said several times is shown once, with its count. */
export function sentenceItems(candidates: readonly Candidate[]): SummaryItem[] {
  const groups = new Map<string, { first: Candidate; count: number; priority: number }>();
  for (const candidate of candidates) {
    const key = normalized(candidate.sentence.text);
    const group = groups.get(key);
    if (group === undefined) groups.set(key, { first: candidate, count: 1, priority: candidate.priority });
    else {
      group.count += 1;
      group.priority = Math.max(group.priority, candidate.priority);
    }
  }
  return [...groups.values()].map(({ first, count, priority }) => ({
    section: first.section,
    order: first.sentence.position,
    priority,
    text: `- [${tagOf(first.sentence)}] ${truncateGraphemes(first.sentence.text, SHOWN_GRAPHEMES)}${count > 1 ? ` (×${count})` : ''}`,
    list: undefined,
    isSentence: true,
  }));
}
