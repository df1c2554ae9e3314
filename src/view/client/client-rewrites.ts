/// <reference lib="dom" />
// A client's own rewrite of its history, as the proxy records it (docs/proxy.md, "Client-side
// rewrites"): a surface event that replaces a range, none of whose sources is a compaction
// event. The page names what the client did from the shape of the replacement: its compaction
// (one new message, or copies, in place of many), a regenerated answer (the last message kept,
// as a copy of itself, in place of itself and the answer after it), a sliding window (the first
// retained message, as a copy of itself, in place of the oldest ones), an edited message, or a
// changed system prompt.

import { type DiffEvent, replacementKind, SURFACE_TYPES, sourcesOf } from './surface-diff.js';

export type ClientRewriteKind = 'client-compaction' | 'regenerated' | 'window' | 'edited' | 'system' | 'rewrite';

export interface ClientRewrite {
  readonly seq: number;
  readonly kind: ClientRewriteKind;
  /** The events it replaced. */
  readonly sources: readonly number[];
  /** How the page names it: "regenerated answer", "client compaction: 4 messages replaced". */
  readonly label: string;
}

interface RewriteEvent extends DiffEvent {
  readonly seq: number;
  readonly surfaceOp?: unknown;
  // biome-ignore lint/suspicious/noExplicitAny: event data is read defensively, field by field
  readonly data?: any;
}

export const REWRITE_KIND_NAMES: Readonly<Record<ClientRewriteKind, string>> = {
  'client-compaction': 'client compaction',
  regenerated: 'regenerated answer',
  window: 'sliding window',
  edited: 'edited message',
  system: 'system prompt changed',
  rewrite: 'client rewrite',
};

/** The client's rewrite `event` is, or undefined when it is none (an append, or shadowlog's own compaction, prune or mask). */
export function clientRewriteOf(
  event: RewriteEvent | undefined,
  eventAt: (seq: number) => DiffEvent | undefined,
): ClientRewrite | undefined {
  if (event === undefined || !SURFACE_TYPES.has(event.type)) return undefined;
  const op = event.surfaceOp as { op?: unknown } | undefined;
  if (typeof op !== 'object' || op === null || op.op !== 'replace') return undefined;
  if (replacementKind(event, eventAt) !== 'replaced') return undefined;
  const sources = sourcesOf(event).filter((seq) => SURFACE_TYPES.has(eventAt(seq)?.type ?? ''));
  const copyOf = typeof event.data?.copyOf === 'number' ? (event.data.copyOf as number) : undefined;
  const first = Math.min(...sources);
  const last = Math.max(...sources);
  const others = sources.filter((seq) => seq !== copyOf);
  let kind: ClientRewriteKind;
  if (event.type === 'system/message') kind = 'system';
  else if (
    copyOf !== undefined &&
    copyOf === first &&
    others.length > 0 &&
    others.every((seq) => eventAt(seq)?.type === 'assistant/message')
  )
    kind = 'regenerated';
  else if (copyOf !== undefined && copyOf === last && others.length > 0) kind = 'window';
  else if (sources.length === 1) kind = 'edited';
  else if (sources.length > 1) kind = 'client-compaction';
  else kind = 'rewrite';
  const count = sources.length;
  const label =
    kind === 'client-compaction'
      ? `client compaction: ${count} messages replaced`
      : kind === 'window'
        ? `sliding window: ${others.length} oldest dropped`
        : kind === 'regenerated'
          ? `regenerated answer: ${others.length === 1 ? 'the last answer' : `${others.length} answers`} dropped`
          : REWRITE_KIND_NAMES[kind];
  return { seq: event.seq, kind, sources, label };
}
