// The lines of `shadowlog sessions`: a header and one line per session, numbers right-aligned,
// the request last and cut to fit, so that twenty sessions can be told apart at a glance.

import type { SessionOverview } from './session-overview.js';

const REQUEST_WIDTH = 60;
const PROJECT_WIDTH = 32;
const MODEL_WIDTH = 28;

export function SESSION_HEADER(width: number): string {
  return [
    'SESSION'.padEnd(width),
    'SOURCE'.padEnd(11),
    'CALLS'.padStart(6),
    'COMPACTIONS'.padStart(11),
    'TOKENS'.padStart(7),
    'COST'.padStart(9),
    'LAST ACTIVITY'.padEnd(16),
    'PROJECT'.padEnd(PROJECT_WIDTH),
    'MODEL'.padEnd(MODEL_WIDTH),
    'FIRST REQUEST',
  ].join('  ');
}

export function formatSessionLine(session: SessionOverview, depth: number, width: number): string {
  const name = `${'  '.repeat(depth)}${depth > 0 ? '└ ' : ''}${session.id}`;
  const compactions = `${session.compactions}${session.clientCompactions > 0 ? `+${session.clientCompactions} client` : ''}`;
  const model =
    session.models.length === 0
      ? '–'
      : `${clipEnd(session.models[0] as string, MODEL_WIDTH - 3)}${session.models.length > 1 ? ` +${session.models.length - 1}` : ''}`;
  return [
    name.padEnd(width),
    session.source.padEnd(11),
    String(session.calls).padStart(6),
    compactions.padStart(11),
    formatTokens(session.tokens.total).padStart(7),
    formatCost(session).padStart(9),
    formatTime(session.lastActivity).padEnd(16),
    (session.project === null ? '–' : clipStart(session.project, PROJECT_WIDTH)).padEnd(PROJECT_WIDTH),
    model.padEnd(MODEL_WIDTH),
    session.firstRequest === null ? '–' : `"${clipEnd(session.firstRequest, REQUEST_WIDTH)}"`,
  ].join('  ');
}

/** 950, 12.3k, 4.56M: the figure at a glance (--json has it exact). */
export function formatTokens(tokens: number): string {
  if (tokens < 1_000) return String(tokens);
  if (tokens < 1_000_000) return `${(tokens / 1_000).toFixed(tokens < 10_000 ? 1 : 0)}k`;
  return `${(tokens / 1_000_000).toFixed(tokens < 10_000_000 ? 2 : 1)}M`;
}

/** Dollars; `*` when some calls' models are unpriced (left out), `unpriced` when all are, `–` without usage. */
function formatCost(session: SessionOverview): string {
  const { usd, unpricedCalls } = session.cost;
  if (usd === null) return unpricedCalls > 0 ? 'unpriced' : '–';
  return `${formatUsd(usd)}${unpricedCalls > 0 ? '*' : ''}`;
}

export function formatUsd(usd: number): string {
  // A cent and less keeps its figure: 0.0029, not 0.00.
  return `$${usd.toFixed(usd > 0 && usd < 0.01 ? 4 : 2)}`;
}

/** 2026-02-12 21:03 (UTC, as the log keeps it). */
function formatTime(iso: string): string {
  return iso.slice(0, 16).replace('T', ' ');
}

function clipEnd(text: string, length: number): string {
  const characters = Array.from(text);
  return characters.length <= length ? text : `${characters.slice(0, length - 1).join('')}…`;
}

/** The end of a path is what tells two projects apart. */
function clipStart(text: string, length: number): string {
  const characters = Array.from(text);
  return characters.length <= length ? text : `…${characters.slice(characters.length - length + 1).join('')}`;
}
