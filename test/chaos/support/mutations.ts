// Next appends for the log fuzzer: for a random valid log's current surface, one batch that
// is either legal (a summary, a prune, a turn) or breaks one chosen rule of SPEC §2–§3, with
// the error it must get.

import type { SurfaceOpRule } from '../../../src/log/errors.js';
import { type CorruptLogError, InvalidEventError, UnknownEventTypeError } from '../../../src/log/errors.js';
import type { EventDraft } from '../../../src/log/event.js';
import type { SurfaceFold, SurfaceNode } from '../../../src/log/surface-fold.js';
import { drafts } from '../../support/events.js';
import { moreDrafts, rawSurfaceOp, replaceOp } from '../../support/log-drafts.js';
import type { RandomSource } from '../../support/random-log.js';
import { callIdsOf, isLegalRange, resultCallId } from './log-model.js';

export type Expected =
  | { readonly rule: SurfaceOpRule }
  | { readonly error: typeof InvalidEventError | typeof UnknownEventTypeError | typeof CorruptLogError }
  | { readonly valid: true };

export interface Mutation {
  readonly kind: string;
  readonly batch: EventDraft[];
  readonly expected: Expected;
}

interface Context {
  readonly random: RandomSource;
  readonly fold: SurfaceFold;
  readonly nodes: readonly SurfaceNode[];
  /** The seq the mutated draft will take (after any valid prefix in its batch). */
  readonly at: number;
}

type Maker = (context: Context) => (Omit<Mutation, 'batch'> & { draft: EventDraft }) | undefined;

const pick = <T>(random: RandomSource, items: readonly T[]): T | undefined =>
  items.length === 0 ? undefined : items[random.nextInt(0, items.length - 1)];

/** A legal range by position (a few tries), as [start, end] positions. */
function legalRange(context: Context, minLength = 1): [number, number] | undefined {
  const { random, nodes } = context;
  for (let attempt = 0; attempt < 20; attempt++) {
    const start = random.nextInt(0, Math.max(0, nodes.length - 1));
    const end = Math.min(nodes.length - 1, start + random.nextInt(minLength - 1, 8));
    if (end - start + 1 >= minLength && isLegalRange(nodes, start, end)) return [start, end];
  }
  return undefined;
}

function seqsOf(nodes: readonly SurfaceNode[], start: number, end: number): number[] {
  return nodes.slice(start, end + 1).map((node) => node.seq);
}

function summaryOver(nodes: readonly SurfaceNode[], start: number, end: number, sources: number[]): EventDraft {
  return moreDrafts.userReplace('summary', (nodes[start] as SurfaceNode).seq, (nodes[end] as SurfaceNode).seq, sources);
}

const nonHead = (context: Context) => context.nodes.filter((node, index) => !(index === 0 && node.type === 'system/message'));

const invalid = (kind: string, draft: EventDraft, rule: SurfaceOpRule) => ({ kind, draft, expected: { rule } });

export const MAKERS: Record<string, Maker> = {
  'wrong-keys': ({ random, nodes }) => {
    const node = pick(random, nodes);
    if (node === undefined) return undefined;
    const shapes: unknown[] = [
      { op: 'replace', startSeq: node.seq, endSeq: node.seq, extra: true },
      { op: 'replace', startSeq: node.seq },
      { op: 'Replace', startSeq: node.seq, endSeq: node.seq },
      { op: 'replace', startSeq: String(node.seq), endSeq: node.seq },
      { op: 'replace', startSeq: -1, endSeq: node.seq },
      { op: 'replace', startSeq: node.seq + 0.5, endSeq: node.seq },
      ['replace', node.seq, node.seq],
      'prepend',
      null,
    ];
    const surfaceOp = rawSurfaceOp(pick(random, shapes));
    return invalid('wrong-keys', { ...moreDrafts.userReplace('x', 0, 0, [node.seq]), surfaceOp }, 'malformed');
  },
  alias: ({ random, nodes }) => {
    const node = pick(random, nodes);
    if (node === undefined) return undefined;
    const s = node.seq;
    const shapes: unknown[] = [
      { op: 'replace', start: s, end: s },
      { op: 'replace', from: s, to: s },
      { op: 'replace', startSeq: s, end: s },
      { op: 'replace', start: s, endSeq: s },
      { op: 'replace', startSeq: s, endSeq: s, to: s },
    ];
    return invalid('alias', { ...moreDrafts.userReplace('x', 0, 0, [s]), surfaceOp: rawSurfaceOp(pick(random, shapes)) }, 'malformed');
  },
  'out-of-order': ({ random, nodes }) => {
    if (nodes.length < 2) return undefined;
    // Prefer a pair whose numbers are in order but positions are not (a summary standing early).
    const pairs: Array<[SurfaceNode, SurfaceNode]> = [];
    nodes.forEach((early, index) => {
      for (const late of nodes.slice(index + 1)) if (early.seq > late.seq) pairs.push([early, late]);
    });
    let early: SurfaceNode;
    let late: SurfaceNode;
    if (pairs.length > 0 && random.nextInt(0, 1) === 0) [early, late] = pick(random, pairs) as [SurfaceNode, SurfaceNode];
    else {
      const i = random.nextInt(0, nodes.length - 2);
      const j = random.nextInt(i + 1, nodes.length - 1);
      [early, late] = [nodes[i] as SurfaceNode, nodes[j] as SurfaceNode];
    }
    return invalid('out-of-order', moreDrafts.userReplace('x', late.seq, early.seq, [early.seq, late.seq]), 'out-of-order');
  },
  'sources-missing': (context) => {
    const range = legalRange(context, 2);
    if (range === undefined) return undefined;
    const seqs = seqsOf(context.nodes, ...range);
    seqs.splice(context.random.nextInt(0, seqs.length - 1), 1);
    return invalid('sources-missing', summaryOver(context.nodes, ...range, seqs), 'sources-missing');
  },
  'sources-malformed': (context) => {
    const range = legalRange(context);
    if (range === undefined) return undefined;
    const seqs = seqsOf(context.nodes, ...range);
    const first = seqs[0] as number;
    const variants: unknown[] = [
      [],
      [...seqs, first],
      [...seqs, context.at],
      [...seqs, context.at + 5],
      [...seqs, -1],
      [...seqs, 1.5],
      [...seqs, 'x'],
    ];
    return invalid(
      'sources-malformed',
      summaryOver(context.nodes, ...range, pick(context.random, variants) as number[]),
      'sources-malformed',
    );
  },
  'sources-foreign': (context) => {
    const range = legalRange(context);
    if (range === undefined) return undefined;
    const seqs = seqsOf(context.nodes, ...range);
    const inRange = new Set(seqs);
    const lastShadowed = Math.max(...seqs);
    const candidates: number[] = [];
    for (let seq = 0; seq < context.fold.nextSeq; seq++) {
      if (inRange.has(seq)) continue;
      // A surface event it does not shadow, or a log-only event older than what it shadows.
      if (context.fold.isSurfaceEvent(seq) || seq < lastShadowed) candidates.push(seq);
    }
    const extra = pick(context.random, candidates);
    if (extra === undefined) return undefined;
    return invalid('sources-foreign', summaryOver(context.nodes, ...range, [...seqs, extra]), 'sources-foreign');
  },
  'split-pair': (context) => {
    const { random, nodes } = context;
    const partners = new Map<string, number>();
    nodes.forEach((node, index) => {
      if (node.type === 'tool/result') partners.set(resultCallId(node), index);
    });
    const splits: Array<[number, number]> = [];
    nodes.forEach((node, index) => {
      if (index === 0 && node.type === 'system/message') return;
      for (const callId of node.type === 'assistant/message' ? callIdsOf(node) : []) {
        const result = partners.get(callId);
        if (result === undefined) continue;
        splits.push([Math.max(index - random.nextInt(0, 2), nodes[0]?.type === 'system/message' ? 1 : 0), result - 1]); // call without result
        splits.push([index + 1, result + random.nextInt(0, 2)]); // result without call
      }
    });
    const valid = splits
      .map(([start, end]): [number, number] => [start, Math.min(end, nodes.length - 1)])
      .filter(([start, end]) => start <= end && !isLegalRange(nodes, start, end));
    const range = pick(random, valid);
    if (range === undefined) return undefined;
    return invalid('split-pair', summaryOver(nodes, ...range, seqsOf(nodes, ...range)), 'splits-tool-pair');
  },
  'replacing-assistant-with-calls': (context) => {
    const range = legalRange(context);
    if (range === undefined) return undefined;
    const [start, end] = range;
    const draft: EventDraft = {
      ...drafts.assistant('summary with a call', [`fresh-${context.at}`]),
      surfaceOp: replaceOp((context.nodes[start] as SurfaceNode).seq, (context.nodes[end] as SurfaceNode).seq),
      sourceEventSeqs: seqsOf(context.nodes, start, end),
    };
    return invalid('replacing-assistant-with-calls', draft, 'splits-tool-pair');
  },
  'already-shadowed': (context) => {
    const { random, fold, nodes } = context;
    const gone: number[] = [];
    for (let seq = 0; seq < fold.nextSeq; seq++) if (!fold.isCurrent(seq)) gone.push(seq);
    const seq = pick(random, gone);
    const current = pick(random, nodes);
    if (seq === undefined || current === undefined) return undefined;
    const [startSeq, endSeq] =
      random.nextInt(0, 2) === 0 ? [seq, seq] : random.nextInt(0, 1) === 0 ? [seq, current.seq] : [current.seq, seq];
    return invalid('already-shadowed', moreDrafts.userReplace('x', startSeq, endSeq, [...new Set([startSeq, endSeq])]), 'not-current');
  },
  future: ({ random, nodes, at }) => {
    const node = pick(random, nodes);
    if (node === undefined) return undefined;
    const later = at + random.nextInt(0, 50);
    const [startSeq, endSeq] = random.nextInt(0, 1) === 0 ? [node.seq, later] : [later, later];
    return invalid('future', moreDrafts.userReplace('x', startSeq, endSeq, [node.seq]), 'not-before');
  },
  'tool-result-wrong-call': (context) => {
    const { random, nodes } = context;
    const targets = nonHead(context);
    const target = pick(random, targets);
    if (target === undefined) return undefined;
    const otherCalls = nodes.filter((node) => node.type === 'tool/result' && node !== target).map(resultCallId);
    const callId = pick(random, [...otherCalls, 'no-such-call']) as string;
    if (target.type === 'tool/result' && resultCallId(target) === callId) return undefined;
    const draft = moreDrafts.toolResultReplace(callId, '[pruned]', target.seq, target.seq, [target.seq]);
    return invalid('tool-result-wrong-call', draft, 'tool-result-replacement');
  },
  'system-head': (context) => {
    const { random, nodes } = context;
    const head = nodes[0];
    if (head?.type !== 'system/message') return undefined;
    const variant = random.nextInt(0, 2);
    if (variant === 0) return invalid('system-head', moreDrafts.userReplace('x', head.seq, head.seq, [head.seq]), 'system-head');
    if (variant === 1)
      return invalid(
        'system-head',
        { ...drafts.assistant('x'), surfaceOp: replaceOp(head.seq, head.seq), sourceEventSeqs: [head.seq] },
        'system-head',
      );
    const next = nodes[1];
    if (next === undefined) return undefined;
    return invalid('system-head', moreDrafts.systemReplace('x', head.seq, next.seq, [head.seq, next.seq]), 'system-head');
  },
  'result-unknown-call': ({ random }) =>
    invalid(
      'result-unknown-call',
      drafts.toolResult(pick(random, ['no-such-call', 'call-0', 'CALL-1']) as string, 'r'),
      'tool-call-unknown',
    ),
  'duplicate-call': ({ random, nodes }) => {
    const answered = nodes.filter((node) => node.type === 'tool/result').map(resultCallId);
    const callId = pick(random, answered);
    if (callId === undefined) return undefined;
    const draft = random.nextInt(0, 1) === 0 ? drafts.toolResult(callId, 'again') : drafts.assistant('again', [callId]);
    return invalid('duplicate-call', draft, 'tool-call-duplicate');
  },
  'log-only-with-op': ({ random, nodes }) => {
    const node = pick(random, nodes);
    const draft: EventDraft =
      random.nextInt(0, 1) === 0 || node === undefined
        ? { ...moreDrafts.turnEnd(1), surfaceOp: 'append' }
        : { ...moreDrafts.endSeed(), surfaceOp: replaceOp(node.seq, node.seq), sourceEventSeqs: [node.seq] };
    return invalid('log-only-with-op', draft, 'not-surface-type');
  },
  'append-with-sources': ({ random, nodes }) => {
    const node = pick(random, nodes);
    return invalid(
      'append-with-sources',
      { ...drafts.user('x'), sourceEventSeqs: node === undefined ? [] : [node.seq] },
      'sources-malformed',
    );
  },
  'bad-envelope': ({ random, at }) => {
    const variants: Array<{ draft: EventDraft; error: typeof InvalidEventError | typeof UnknownEventTypeError }> = [
      { draft: { ...drafts.user('x'), seq: at } as unknown as EventDraft, error: InvalidEventError },
      { draft: { ...drafts.user('x'), hash: 'f'.repeat(64) } as unknown as EventDraft, error: InvalidEventError },
      { draft: { ...drafts.user('x'), time: 'yesterday' }, error: InvalidEventError },
      { draft: { ...drafts.user('x'), ignorable: false } as unknown as EventDraft, error: InvalidEventError },
      { draft: { type: 'User/Message', data: {}, surfaceOp: 'append' }, error: InvalidEventError },
      { draft: { type: 'user/message', data: [] } as unknown as EventDraft, error: InvalidEventError },
      { draft: { type: 'user/message', data: { content: 'not blocks' }, surfaceOp: 'append' }, error: InvalidEventError },
      { draft: drafts.start(), error: InvalidEventError },
      { draft: { type: 'custom/unknown', data: {} }, error: UnknownEventTypeError },
    ];
    const chosen = pick(random, variants) as (typeof variants)[number];
    return { kind: 'bad-envelope', draft: chosen.draft, expected: { error: chosen.error } };
  },
  // Legal next steps.
  'valid-summary': (context) => {
    const range = legalRange(context);
    if (range === undefined) return undefined;
    const seqs = seqsOf(context.nodes, ...range);
    return { kind: 'valid-summary', draft: summaryOver(context.nodes, ...range, [...seqs].reverse()), expected: { valid: true } };
  },
  'valid-prune': (context) => {
    const node = pick(
      context.random,
      context.nodes.filter((candidate) => candidate.type === 'tool/result'),
    );
    if (node === undefined) return undefined;
    return {
      kind: 'valid-prune',
      draft: moreDrafts.toolResultReplace(resultCallId(node), '[pruned]', node.seq, node.seq, [node.seq]),
      expected: { valid: true },
    };
  },
  'valid-turn': ({ at }) => ({ kind: 'valid-turn', draft: drafts.assistant(`answer ${at}`, [`v-${at}`]), expected: { valid: true } }),
};

export const INVALID_KINDS = Object.keys(MAKERS).filter((kind) => !kind.startsWith('valid-'));
export const VALID_KINDS = Object.keys(MAKERS).filter((kind) => kind.startsWith('valid-'));

/**
 * A mutation of the chosen kind for the fold's current surface, or undefined when the surface
 * offers none (no system head, no tool pair, …). Sometimes a legal log-only event goes first in
 * the same batch, so the refusal must also take back an event that was fine on its own.
 */
export function makeMutation(kind: string, random: RandomSource, fold: SurfaceFold): Mutation | undefined {
  const prefix: EventDraft[] = random.nextInt(0, 3) === 0 ? [moreDrafts.ignorableNote('before')] : [];
  const made = (MAKERS[kind] as Maker)({ random, fold, nodes: fold.toArray(), at: fold.nextSeq + prefix.length });
  if (made === undefined) return undefined;
  return { kind: made.kind, batch: [...prefix, made.draft], expected: made.expected };
}
