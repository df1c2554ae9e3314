// The report's two plots as standalone SVG: cost against retention for every policy (with the
// frontier of those no other beats on both), and one session's input tokens per call under each
// policy, with its window and each policy's compaction points.

import type { SessionResult } from './session-replay.js';
import type { PolicySummary } from './tune-report.js';

const WIDTH = 1040;
const HEIGHT = 440;
// The right margin holds the legend: grid policies have long names.
const MARGIN = { left: 80, right: 420, top: 30, bottom: 50 };
const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf'];

const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const fixed = (value: number) => value.toFixed(1);

function frame(title: string, xLabel: string, yLabel: string, body: string): string {
  const plotBottom = HEIGHT - MARGIN.bottom;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="11">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="white"/>`,
    `<text x="${MARGIN.left}" y="18" font-size="13">${escapeXml(title)}</text>`,
    `<line x1="${MARGIN.left}" y1="${plotBottom}" x2="${WIDTH - MARGIN.right}" y2="${plotBottom}" stroke="black"/>`,
    `<line x1="${MARGIN.left}" y1="${MARGIN.top}" x2="${MARGIN.left}" y2="${plotBottom}" stroke="black"/>`,
    `<text x="${(MARGIN.left + WIDTH - MARGIN.right) / 2}" y="${HEIGHT - 12}" text-anchor="middle">${escapeXml(xLabel)}</text>`,
    `<text x="16" y="${(MARGIN.top + plotBottom) / 2}" text-anchor="middle" transform="rotate(-90 16 ${(MARGIN.top + plotBottom) / 2})">${escapeXml(yLabel)}</text>`,
    body,
    '</svg>',
    '',
  ].join('\n');
}

interface Axis {
  readonly min: number;
  readonly max: number;
  at(value: number): number;
}

function axis(min: number, max: number, from: number, to: number): Axis {
  const span = max - min || Math.abs(max) || 1;
  return { min, max, at: (value) => from + ((value - min) / span) * (to - from) };
}

function ticks(x: Axis, y: Axis, formatX: (value: number) => string, formatY: (value: number) => string): string {
  const parts: string[] = [];
  for (let step = 0; step <= 4; step++) {
    const xValue = x.min + ((x.max - x.min) * step) / 4;
    const yValue = y.min + ((y.max - y.min) * step) / 4;
    parts.push(
      `<text x="${fixed(x.at(xValue))}" y="${HEIGHT - MARGIN.bottom + 16}" text-anchor="middle">${escapeXml(formatX(xValue))}</text>`,
    );
    parts.push(`<text x="${MARGIN.left - 6}" y="${fixed(y.at(yValue) + 4)}" text-anchor="end">${escapeXml(formatY(yValue))}</text>`);
  }
  return parts.join('\n');
}

/** A policy on the cost-retention plot. */
export interface CostRetentionPoint {
  readonly name: string;
  /** Dollars, or input tokens when `priced` is false. */
  readonly cost: number;
  readonly share: number;
  readonly feasible: boolean;
}

/** Cost (or input tokens, when some calls have no price) against retention; the frontier joins the policies no other beats on both. */
export function costRetentionSvg(policies: readonly PolicySummary[]): string {
  const priced = policies.every((policy) => policy.unpricedCalls === 0);
  return costRetentionPointsSvg(
    policies.map((policy) => ({
      name: policy.policy,
      cost: priced ? policy.costUsd : policy.tokensSent,
      share: policy.retention.share,
      feasible: policy.feasible,
    })),
    { priced },
  );
}

/** The cost-retention plot of any set of points (the evidence's policies over many sessions and windows). */
export function costRetentionPointsSvg(
  points: readonly CostRetentionPoint[],
  options: { readonly priced: boolean; readonly title?: string },
): string {
  const { priced } = options;
  const costs = points.map((point) => point.cost);
  const shares = points.map((point) => point.share);
  const x = axis(Math.min(...costs) * 0.95, Math.max(...costs) * 1.05, MARGIN.left, WIDTH - MARGIN.right);
  const y = axis(Math.max(0, Math.min(...shares) - 0.02), 1, HEIGHT - MARGIN.bottom, MARGIN.top);
  const feasible = points.filter((point) => point.feasible);
  const frontier = feasible
    .filter(
      (point) =>
        !feasible.some(
          (other) =>
            other !== point &&
            other.cost <= point.cost &&
            other.share >= point.share &&
            (other.cost < point.cost || other.share > point.share),
        ),
    )
    .sort((a, b) => a.cost - b.cost);
  const parts: string[] = [
    ticks(
      x,
      y,
      (value) => (priced ? `$${value.toFixed(2)}` : `${Math.round(value / 1000)}k`),
      (value) => `${(100 * value).toFixed(1)} %`,
    ),
  ];
  if (frontier.length > 1) {
    const line = frontier.map((point) => `${fixed(x.at(point.cost))},${fixed(y.at(point.share))}`).join(' ');
    parts.push(`<polyline points="${line}" fill="none" stroke="#555" stroke-dasharray="4 3"/>`);
  }
  points.forEach((point, index) => {
    const color = COLORS[index % COLORS.length] as string;
    const cx = fixed(x.at(point.cost));
    const cy = fixed(y.at(point.share));
    parts.push(
      point.feasible
        ? `<circle cx="${cx}" cy="${cy}" r="5" fill="${color}"><title>${escapeXml(point.name)}</title></circle>`
        : `<circle cx="${cx}" cy="${cy}" r="5" fill="none" stroke="${color}" stroke-width="2"><title>${escapeXml(point.name)} (infeasible)</title></circle>`,
    );
    const legendY = MARGIN.top + 14 * index;
    parts.push(
      `<circle cx="${WIDTH - MARGIN.right + 14}" cy="${legendY}" r="4" fill="${point.feasible ? color : 'none'}" stroke="${color}"/>`,
    );
    parts.push(
      `<text x="${WIDTH - MARGIN.right + 22}" y="${legendY + 4}">${escapeXml(point.name)}${point.feasible ? '' : ' (infeasible)'}</text>`,
    );
  });
  return frame(
    options.title ?? `cost against retention (${points.length} policies; dashed: the frontier)`,
    priced ? 'cost in US dollars (input, cache and output, with the summarizer)' : 'input tokens sent',
    'retention (share of later uses on the surface)',
    parts.join('\n'),
  );
}

/** Input tokens of each call of one session under each policy, with the window and the compaction points. */
export function tokensPerCallSvg(session: SessionResult, names: readonly string[]): string {
  const window = Math.max(...session.windows);
  const peak = Math.max(window, ...session.policies.flatMap((policy) => policy.tokensPerCall.map((tokens) => tokens ?? 0)));
  const x = axis(1, Math.max(2, session.calls), MARGIN.left, WIDTH - MARGIN.right);
  const y = axis(0, peak * 1.05, HEIGHT - MARGIN.bottom, MARGIN.top);
  const parts: string[] = [
    ticks(
      x,
      y,
      (value) => String(Math.round(value)),
      (value) => `${Math.round(value / 1000)}k`,
    ),
  ];
  parts.push(
    `<line x1="${MARGIN.left}" y1="${fixed(y.at(window))}" x2="${WIDTH - MARGIN.right}" y2="${fixed(y.at(window))}" stroke="black" stroke-dasharray="6 3"/>`,
  );
  parts.push(
    `<text x="${WIDTH - MARGIN.right - 4}" y="${fixed(y.at(window) - 4)}" text-anchor="end">window ${window.toLocaleString('en-US')}</text>`,
  );
  session.policies.forEach((policy, index) => {
    const color = COLORS[index % COLORS.length] as string;
    const points: string[] = [];
    policy.tokensPerCall.forEach((tokens, call) => {
      if (tokens !== null) points.push(`${fixed(x.at(call + 1))},${fixed(y.at(tokens))}`);
    });
    if (points.length > 0) parts.push(`<polyline points="${points.join(' ')}" fill="none" stroke="${color}" stroke-width="1.2"/>`);
    for (const call of policy.compactionCalls) {
      const tokens = policy.tokensPerCall[call - 1];
      if (tokens === null || tokens === undefined) continue;
      parts.push(
        `<circle cx="${fixed(x.at(call))}" cy="${fixed(y.at(tokens))}" r="3" fill="${color}"><title>${escapeXml(policy.policy)}: call ${call}</title></circle>`,
      );
    }
    const legendY = MARGIN.top + 14 * index;
    parts.push(
      `<line x1="${WIDTH - MARGIN.right + 8}" y1="${legendY}" x2="${WIDTH - MARGIN.right + 20}" y2="${legendY}" stroke="${color}" stroke-width="2"/>`,
    );
    parts.push(`<text x="${WIDTH - MARGIN.right + 24}" y="${legendY + 4}">${escapeXml(names[index] ?? policy.policy)}</text>`);
  });
  return frame(`${session.sessionId}: input tokens per call (dots: compactions)`, 'model call', 'input tokens', parts.join('\n'));
}
