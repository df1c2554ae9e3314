// The "files and identifiers" lists: every path and identifier met in the kept text and in
// the tool calls' arguments, ranked by how often and by whom they were mentioned.

import type { EntityList, SummaryItem } from './assemble.js';
import type { Candidate } from './candidates.js';
import { type Entity, entitiesOf } from './entities.js';
import { priorityOf, TIER } from './priority.js';
import type { SourceRole, ToolCallRecord } from './read-messages.js';
import { keyArguments } from './tool-calls.js';

/** A path the user named, or a tool was pointed at, matters more than one a tool printed. */
const MENTION_WEIGHT: Readonly<Record<SourceRole | 'call', number>> = { user: 2, call: 2, assistant: 1.5, system: 1, tool: 0.5 };
const PATH_ARGUMENTS = new Set(['path', 'file', 'file_path', 'filePath', 'filename', 'directory', 'dir', 'cwd']);
const ENTRIES_PER_LIST = 40;
/** The most mentioned paths are essential, the most mentioned identifiers key; the rest support. */
const LEADING_ENTRIES = 20;

interface Mention {
  readonly messageIndex: number;
  readonly entity: Entity;
  readonly weight: number;
}

interface Tally {
  text: string;
  readonly list: EntityList;
  readonly first: number;
  score: number;
}

function callMentions(call: ToolCallRecord): Mention[] {
  const mentions: Mention[] = [];
  for (const [name, value] of keyArguments(call.arguments)) {
    // A path argument is a path even without a slash or a known extension ("Makefile").
    const entities: Entity[] =
      PATH_ARGUMENTS.has(name) && !/\s/.test(value) ? [{ kind: 'path', text: value, key: value }] : entitiesOf(value);
    for (const entity of entities) mentions.push({ messageIndex: call.messageIndex, entity, weight: MENTION_WEIGHT.call });
  }
  return mentions;
}

function mentionsOf(candidates: readonly Candidate[], calls: readonly ToolCallRecord[]): Mention[] {
  const fromText = candidates.flatMap(({ sentence, entities }) =>
    entities.map((entity) => ({ messageIndex: sentence.messageIndex, entity, weight: MENTION_WEIGHT[sentence.role] })),
  );
  // A stable sort by message keeps a message's text before its calls, as they were written.
  return [...fromText, ...calls.flatMap(callMentions)].sort((first, second) => first.messageIndex - second.messageIndex);
}

/** One item per entity, the best ENTRIES_PER_LIST of each list; shown in first-mention order. */
export function entityItems(candidates: readonly Candidate[], calls: readonly ToolCallRecord[]): SummaryItem[] {
  const tallies = new Map<string, Tally>();
  for (const { entity, weight } of mentionsOf(candidates, calls)) {
    const list: EntityList = entity.kind === 'path' ? 'files' : 'identifiers';
    const key = `${list}|${entity.key}`;
    const tally = tallies.get(key) ?? { text: entity.text, list, first: tallies.size, score: 0 };
    tally.score += weight;
    // "parseRow()" says more than "parseRow": it is a function.
    if (entity.text.length > tally.text.length) tally.text = entity.text;
    tallies.set(key, tally);
  }
  const items: SummaryItem[] = [];
  for (const list of ['files', 'identifiers'] as const) {
    const ranked = [...tallies.values()]
      .filter((tally) => tally.list === list)
      .sort((first, second) => second.score - first.score || first.first - second.first);
    ranked.slice(0, ENTRIES_PER_LIST).forEach((tally, rank) => {
      const leading = list === 'files' ? TIER.essential : TIER.key;
      const tier = rank < LEADING_ENTRIES ? leading : TIER.supporting;
      items.push({
        section: 'files',
        order: tally.first,
        priority: priorityOf(tier, tally.score),
        text: tally.text,
        list,
        isSentence: false,
      });
    });
  }
  return items;
}
