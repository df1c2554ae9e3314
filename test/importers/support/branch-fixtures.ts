// Branches other harnesses make, written as those harnesses write them, from corpus files: a
// Claude Code transcript rewound (a prompt whose parentUuid is an earlier message, the old path
// left in the file), a `--fork-session` file (the parent's records copied with the new
// sessionId and a `forkedFrom` marker, then its own), a Codex rollout forked with `/fork` (its
// own session_meta with forked_from_id, the parent's lines replayed with new timestamps, then
// its own turn). Each returns the lines of the files it makes; the corpus is never changed.

import { readFileSync } from 'node:fs';
import { CORPUS_FILES, corpusFile } from '../../support/corpus-sessions.js';

type Line = Record<string, unknown>;

const lines = (path: string): Line[] =>
  readFileSync(corpusFile(path), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Line);

export const jsonl = (records: readonly Line[]): string => `${records.map((record) => JSON.stringify(record)).join('\n')}\n`;

/** The small Claude Code corpus transcript: session id, its records, and the uuid of its last message. */
export function claudeSmall(): { sessionId: string; records: Line[]; last: string } {
  const records = lines(CORPUS_FILES.claudeSmall);
  const last = records[records.length - 1] as Line;
  return { sessionId: String(last.sessionId), records, last: String(last.uuid) };
}

let counter = 0;
const uuid = (tag: string): string => `${tag.padEnd(8, '0').slice(0, 8)}-0000-4000-8000-${String(++counter).padStart(12, '0')}`;

/** A Claude Code prompt and its one-line answer, continuing `parentUuid`. */
export function claudeExchange(sessionId: string, parentUuid: string, prompt: string, answer: string, time: string, tag: string): Line[] {
  const userUuid = uuid(`${tag}u`);
  const base = { isSidechain: false, userType: 'external', cwd: '/path/to/Demo', sessionId, version: '1.0.108', gitBranch: 'main' };
  return [
    { parentUuid, ...base, type: 'user', message: { role: 'user', content: prompt }, uuid: userUuid, timestamp: time },
    {
      parentUuid: userUuid,
      ...base,
      type: 'assistant',
      message: {
        id: `msg_${tag}_${counter}`,
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-20250514',
        content: [{ type: 'text', text: answer }],
        stop_reason: 'end_turn',
        stop_sequence: null,
        usage: { input_tokens: 12, output_tokens: 7 },
      },
      uuid: uuid(`${tag}a`),
      timestamp: time.replace(/\.\d+Z$/, '.500Z'),
    },
  ];
}

/**
 * The small transcript, then a second prompt and answer, then that prompt rewound and asked
 * again otherwise (its parent the same last message of the corpus file): the second exchange is
 * an abandoned path, the third the latest.
 */
export function claudeRewound(): { sessionId: string; records: Line[]; abandonedUuid: string; corpusLines: number } {
  const { sessionId, records, last } = claudeSmall();
  const abandoned = claudeExchange(sessionId, last, 'Now add a dark mode.', 'Dark mode added.', '2025-09-07T10:00:00.000Z', 'aband');
  const latest = claudeExchange(sessionId, last, 'Now add a light theme toggle.', 'Toggle added.', '2025-09-07T10:05:00.000Z', 'latest');
  return {
    sessionId,
    records: [...records, ...abandoned, ...latest],
    abandonedUuid: String(abandoned[0]?.uuid),
    corpusLines: records.length,
  };
}

/**
 * A rewind inside an abandoned path: the second prompt's answer is followed by a third prompt,
 * rewound and asked again; then the second prompt itself is rewound. The main path ends with the
 * last exchange; the second exchange with the third asked again is a branch of it; the first
 * third exchange a branch of that branch.
 */
export function claudeNestedRewinds(): { sessionId: string; records: Line[] } {
  const { sessionId, records, last } = claudeSmall();
  const second = claudeExchange(sessionId, last, 'Now add a dark mode.', 'Dark mode added.', '2025-09-07T10:00:00.000Z', 'second');
  const answer = String(second[1]?.uuid);
  const third = claudeExchange(sessionId, answer, 'Make it blue.', 'Blue it is.', '2025-09-07T10:01:00.000Z', 'thirdold');
  const thirdAgain = claudeExchange(sessionId, answer, 'Make it green.', 'Green it is.', '2025-09-07T10:02:00.000Z', 'thirdnew');
  const latest = claudeExchange(sessionId, last, 'Now add a light theme toggle.', 'Toggle added.', '2025-09-07T10:05:00.000Z', 'latest');
  return { sessionId, records: [...records, ...second, ...third, ...thirdAgain, ...latest] };
}

/** The first prompt rewound: the new prompt starts a new root (parentUuid null), the whole old conversation left beside it. */
export function claudeRewoundToStart(): { sessionId: string; records: Line[] } {
  const { sessionId, records } = claudeSmall();
  const again = claudeExchange(sessionId, '', 'Just say hello.', 'Hello.', '2025-09-07T10:10:00.000Z', 'restart');
  (again[0] as Line).parentUuid = null;
  return { sessionId, records: [...records, ...again] };
}

/**
 * `claude --resume <small> --fork-session`: a new session whose first records copy the small
 * transcript's (its sidechains aside), each with the new sessionId and `forkedFrom` naming the
 * session and record it copies, then a prompt and answer of its own. `change` alters the copy
 * of one record's text (a copy that does not match).
 */
export function claudeForkSession(change?: { line: number }): { parentId: string; sessionId: string; records: Line[] } {
  const { sessionId: parentId, records } = claudeSmall();
  const sessionId = 'f0f0f0f0-1111-4222-8333-444444444444';
  const copies: Line[] = records
    .filter((record) => record.isSidechain !== true)
    .map((record) => ({ ...record, sessionId, forkedFrom: { sessionId: parentId, messageUuid: record.uuid } }));
  if (change !== undefined) {
    const record = copies[change.line - 1] as Line & { message: Line };
    copies[change.line - 1] = { ...record, message: { ...record.message, content: 'a prompt the parent never had' } };
  }
  const last = String(copies[copies.length - 1]?.uuid);
  const own = claudeExchange(sessionId, last, 'Now add a settings page.', 'Settings page added.', '2025-09-08T08:00:00.000Z', 'forkown');
  return { parentId, sessionId, records: [...copies, ...own] };
}

/**
 * A Codex rollout made by `/fork` of the older corpus rollout: its own session_meta naming the
 * parent in `forked_from_id`, the parent's lines replayed with the fork's timestamp, then a turn
 * of its own. `cut` replays only the parent's first lines (a fork from an earlier point).
 */
export function codexFork(cut?: number): { parentId: string; sessionId: string; records: Line[] } {
  const parent = lines(CORPUS_FILES.codexOld);
  const parentMeta = (parent[0] as { payload: Line }).payload;
  const parentId = String(parentMeta.id);
  const sessionId = '019a9999-0000-7000-8000-00000000f0f0';
  const time = '2025-11-18T09:00:00.000Z';
  const replayed = (cut === undefined ? parent : parent.slice(0, cut)).map((record) => ({ ...record, timestamp: time }));
  const own: Line[] = [
    { timestamp: '2025-11-18T09:00:05.000Z', type: 'turn_context', payload: { cwd: parentMeta.cwd, model: 'gpt-5.1-codex' } },
    {
      timestamp: '2025-11-18T09:00:05.000Z',
      type: 'response_item',
      payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Now write the tests.' }] },
    },
    { timestamp: '2025-11-18T09:00:05.000Z', type: 'event_msg', payload: { type: 'user_message', message: 'Now write the tests.' } },
    {
      timestamp: '2025-11-18T09:00:09.000Z',
      type: 'response_item',
      payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Tests written.' }] },
    },
    {
      timestamp: '2025-11-18T09:00:09.100Z',
      type: 'event_msg',
      payload: {
        type: 'token_count',
        info: {
          total_token_usage: {
            input_tokens: 60000,
            cached_input_tokens: 0,
            output_tokens: 20,
            reasoning_output_tokens: 0,
            total_tokens: 60020,
          },
          last_token_usage: {
            input_tokens: 60000,
            cached_input_tokens: 0,
            output_tokens: 20,
            reasoning_output_tokens: 0,
            total_tokens: 60020,
          },
          model_context_window: 258400,
        },
      },
    },
  ];
  const meta = {
    timestamp: time,
    type: 'session_meta',
    payload: { ...parentMeta, id: sessionId, timestamp: time, forked_from_id: parentId },
  };
  return { parentId, sessionId, records: [meta, ...replayed, ...own] };
}

/** The older Codex corpus rollout's lines. */
export function codexOld(): Line[] {
  return lines(CORPUS_FILES.codexOld);
}
