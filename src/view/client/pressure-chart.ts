/// <reference lib="dom" />
// The token-pressure chart: per model call (the x axis, in log order), the meter's estimate, the
// provider-reported input, cache reads, the call's window, and the policy's threshold and
// retained tail where a policy is in force; vertical marks where compactions, prunes, a client's
// rewrites and model switches took effect. Each series can be switched off in the legend; the
// figures of a call show on hover and, with the chart focused, for the call ← → move to. Drawn
// as SVG built element by element; a long session is bucketed to the width (each bucket's peak).

import { count } from './call-figures.js';
import { REWRITE_KIND_NAMES } from './client-rewrites.js';
import type { CallSummary } from './page-blocks.js';
import type { SessionModel } from './session-model.js';
import { el } from './text.js';

const SVG = 'http://www.w3.org/2000/svg';
const HEIGHT = 230;
const MARGIN = { left: 70, right: 16, top: 24, bottom: 40 };

function svg(tag: string, attributes: Record<string, string | number>): SVGElement {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  return element;
}

interface Series {
  readonly key: string;
  readonly name: string;
  readonly className: string;
  readonly values: ReadonlyArray<number | null>;
}

/** Series switched off in the legend, kept across redraws. Cache reads and the window start off when they would flatten the rest. */
const chartHidden = new Set<string>();
let chartDefaultsSet = false;
/** The call the tooltip shows (hover or keys), −1 for none. */
let chartHover = -1;

/** A round step near `span / parts`: 1, 2 or 5 × a power of ten. */
function niceStep(span: number, parts: number): number {
  const raw = Math.max(span / parts, 1);
  const power = 10 ** Math.floor(Math.log10(raw));
  const scaled = raw / power;
  return (scaled <= 1 ? 1 : scaled <= 2 ? 2 : scaled <= 5 ? 5 : 10) * power;
}

function seriesOf(model: SessionModel): Series[] {
  const calls = model.calls;
  const policies = calls.map((call) => model.policyAt(call.seq));
  return [
    { key: 'estimated', name: 'estimated input (meter)', className: 's-estimated', values: calls.map((call) => call.estimate) },
    { key: 'reported', name: 'reported input', className: 's-reported', values: calls.map((call) => call.inputTokens) },
    { key: 'cache', name: 'cache reads', className: 's-cache', values: calls.map((call) => call.cacheReadTokens) },
    { key: 'window', name: 'window', className: 's-window', values: calls.map((call) => call.contextWindow) },
    { key: 'threshold', name: 'threshold', className: 's-threshold', values: policies.map((policy) => policy?.threshold ?? null) },
    { key: 'retain', name: 'retained tail', className: 's-retain', values: policies.map((policy) => policy?.retain ?? null) },
  ].filter((line) => line.values.some((value) => value !== null && value > 0));
}

function peakOf(line: Series | undefined): number {
  let peak = 0;
  for (const value of line?.values ?? []) if (value !== null && value > peak) peak = value;
  return peak;
}

export interface Mark {
  readonly at: number;
  readonly className: string;
  readonly glyph: string;
  readonly title: string;
}

/** Where each compaction, prune, client rewrite and model switch took effect: before the first call after it. */
function marksOf(model: SessionModel): Mark[] {
  const calls = model.calls;
  const firstAfter = (seq: number) => {
    let low = 0;
    let high = calls.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if ((calls[middle]?.seq ?? 0) > seq) high = middle;
      else low = middle + 1;
    }
    return low;
  };
  const marks: Mark[] = [];
  const add = (seq: number, className: string, glyph: string, title: string) => {
    const after = firstAfter(seq);
    if (after > 0 && after < calls.length) marks.push({ at: after - 0.5, className, glyph, title });
  };
  for (const compaction of model.compactions.values())
    if (compaction.replacementSeq !== undefined)
      add(
        compaction.replacementSeq,
        'm-compaction',
        '▤',
        `compaction ${compaction.compactionId.slice(0, 8)} (${compaction.trigger}) at #${compaction.replacementSeq}`,
      );
  for (const prune of model.prunes.values())
    if (prune.replacementSeq !== undefined)
      add(prune.replacementSeq, 'm-prune', '✂', `prune of #${prune.shadowedSeq} at #${prune.replacementSeq}`);
  for (const rewrite of model.rewrites.values()) add(rewrite.seq, 'm-rewrite', '⇄', `${rewrite.label} (by the client) at #${rewrite.seq}`);
  for (const change of model.switches)
    add(change.seq - 1, 'm-switch', '⇆', `model switch at #${change.seq}: ${change.from} → ${change.to}`);
  return marks;
}

const MARK_NAMES: Record<string, string> = {
  'm-compaction': 'compactions',
  'm-prune': 'prunes',
  'm-rewrite': 'client rewrites',
  'm-switch': 'model switches',
};

/**
 * Marks of one kind that fall within the same few pixels drawn as one, its title naming how many
 * and the first and last (a million-event session has ten thousand compactions on a chart a
 * thousand pixels wide).
 */
export function mergedMarks(marks: readonly Mark[], xOf: (mark: Mark) => number): Array<Mark & { readonly x: number }> {
  type Group = { first: Mark; last: Mark; count: number; x: number };
  const groups: Group[] = [];
  // Each kind's marks come in log order: a mark joins the last group of its kind when it stands within 3 px of it.
  const lastOfKind = new Map<string, Group>();
  for (const mark of marks) {
    const at = xOf(mark);
    const group = lastOfKind.get(mark.className);
    if (group !== undefined && Math.abs(at - group.x) < 3) {
      group.last = mark;
      group.count++;
      continue;
    }
    const started = { first: mark, last: mark, count: 1, x: at };
    groups.push(started);
    lastOfKind.set(mark.className, started);
  }
  return groups.map(({ first, last, count: marksHere, x }) => ({
    ...first,
    x,
    title:
      marksHere === 1 ? first.title : `${count(marksHere)} ${MARK_NAMES[first.className] ?? 'marks'} here: ${first.title} … ${last.title}`,
  }));
}

function tooltipLines(model: SessionModel, index: number): string[] {
  const call = model.calls[index];
  if (call === undefined) return [];
  const lines = [`call ${index + 1} of ${model.calls.length} · ${call.turn}.${call.step} · #${call.seq} · ${call.model}`];
  const estimate = call.estimate;
  lines.push(
    `estimated input: ${estimate === null ? 'none' : `~${count(estimate)}${call.metered ? '' : ' (as the request recorded it)'}`}`,
  );
  if (call.inputTokens !== null) {
    lines.push(`reported input: ${count(call.inputTokens)} · output ${count(call.outputTokens ?? 0)}`);
    if (call.cacheReadTokens !== null || call.cacheWriteTokens !== null)
      lines.push(`cache: ${count(call.cacheReadTokens ?? 0)} read, ${count(call.cacheWriteTokens ?? 0)} written`);
  } else lines.push('reported input: none');
  if (call.contextWindow !== null) lines.push(`window: ${count(call.contextWindow)}`);
  const policy = model.policyAt(call.seq);
  if (policy !== undefined) lines.push(`threshold ${count(policy.threshold)} · retained tail ${count(policy.retain)}`);
  return lines;
}

/** Draws the chart into `container`; a click (or Enter on the focused chart) picks a call. */
export function drawPressureChart(container: HTMLElement, model: SessionModel, selected: number, onPick: (index: number) => void): void {
  const calls = model.calls;
  const style = getComputedStyle(container);
  const inner = container.clientWidth - Number.parseFloat(style.paddingLeft) - Number.parseFloat(style.paddingRight);
  const width = Math.max(360, Number.isFinite(inner) && inner > 0 ? inner : 900);
  const plotWidth = width - MARGIN.left - MARGIN.right;
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const all = seriesOf(model);
  if (!chartDefaultsSet && calls.length > 0) {
    chartDefaultsSet = true;
    const input = Math.max(peakOf(all.find((line) => line.key === 'reported')), peakOf(all.find((line) => line.key === 'estimated')));
    // Cache reads above the input they are part of, or a window far above the input, would flatten the lines that matter.
    if (peakOf(all.find((line) => line.key === 'cache')) > input * 1.2) chartHidden.add('cache');
    if (peakOf(all.find((line) => line.key === 'window')) > input * 2.5) chartHidden.add('window');
  }
  const shown = all.filter((line) => !chartHidden.has(line.key));
  const top = Math.max(1, ...shown.map(peakOf)) * 1.05;
  const step = niceStep(top, 4);
  const yTop = Math.ceil(top / step) * step;
  const x = (index: number) => MARGIN.left + (calls.length <= 1 ? plotWidth / 2 : (index / (calls.length - 1)) * plotWidth);
  const y = (value: number) => MARGIN.top + plotHeight - (Math.min(value, yTop) / yTop) * plotHeight;

  const root = svg('svg', { width, height: HEIGHT, viewBox: `0 0 ${width} ${HEIGHT}`, id: 'pressure-chart', tabindex: 0, role: 'img' });
  root.setAttribute('aria-label', `token pressure over ${calls.length} model calls; ← → show a call's figures, Enter opens it`);
  root.append(svg('rect', { x: MARGIN.left, y: MARGIN.top, width: plotWidth, height: plotHeight, class: 'plot' }));
  for (let value = 0; value <= yTop + step / 2; value += step) {
    root.append(svg('line', { x1: MARGIN.left, x2: MARGIN.left + plotWidth, y1: y(value), y2: y(value), class: 'grid' }));
    const label = svg('text', { x: MARGIN.left - 6, y: y(value) + 4, class: 'axis', 'text-anchor': 'end' });
    label.textContent = count(value);
    root.append(label);
  }
  const xStep = niceStep(calls.length, Math.max(2, Math.floor(plotWidth / 90)));
  for (let number = 1; number <= calls.length; number = number === 1 && xStep > 1 ? xStep : number + xStep) {
    const at = x(number - 1);
    root.append(svg('line', { x1: at, x2: at, y1: MARGIN.top + plotHeight, y2: MARGIN.top + plotHeight + 4, class: 'tick' }));
    const label = svg('text', { x: at, y: MARGIN.top + plotHeight + 15, class: 'axis', 'text-anchor': 'middle' });
    label.textContent = count(number);
    root.append(label);
  }
  const xTitle = svg('text', { x: MARGIN.left + plotWidth / 2, y: HEIGHT - 4, class: 'axis-title', 'text-anchor': 'middle' });
  xTitle.textContent = 'model call (in log order)';
  const yTitle = svg('text', {
    x: 12,
    y: MARGIN.top + plotHeight / 2,
    class: 'axis-title',
    'text-anchor': 'middle',
    transform: `rotate(-90 12 ${MARGIN.top + plotHeight / 2})`,
  });
  yTitle.textContent = 'tokens';
  root.append(xTitle, yTitle);

  const marks = mergedMarks(marksOf(model), (mark) =>
    calls.length <= 1 ? x(0) : MARGIN.left + (mark.at / (calls.length - 1)) * plotWidth,
  );
  // Marks closer than a few pixels on average would hide the lines: then each is a tick along the top.
  const markBottom = marks.length > plotWidth / 6 ? MARGIN.top + 10 : MARGIN.top + plotHeight;
  // Glyphs of marks that fall on one spot stand side by side, not on top of each other.
  const atSpot = new Map<number, number>();
  for (const mark of marks) {
    const at = mark.x;
    const spot = Math.round(at / 4);
    const stacked = atSpot.get(spot) ?? 0;
    atSpot.set(spot, stacked + 1);
    const line = svg('line', { x1: at, x2: at, y1: MARGIN.top, y2: markBottom, class: `mark ${mark.className}` });
    const glyph = svg('text', {
      x: Math.min(Math.max(at, MARGIN.left + 6), MARGIN.left + plotWidth - 6),
      y: MARGIN.top - 6,
      class: `mark-glyph ${mark.className}`,
      'text-anchor': 'middle',
    });
    glyph.textContent = mark.glyph;
    const title = svg('title', {});
    title.textContent = mark.title;
    glyph.append(title);
    root.append(line, glyph);
  }
  const buckets = Math.max(1, Math.ceil(calls.length / plotWidth));
  for (const line of shown) {
    // A gap where the series is not defined (no policy yet, no usage): separate polylines, never a line across it.
    let points: string[] = [];
    const flush = () => {
      if (points.length > 0) root.append(svg('polyline', { points: points.join(' '), class: `series ${line.className}` }));
      points = [];
    };
    for (let start = 0; start < line.values.length; start += buckets) {
      let peak: number | null = null;
      for (let index = start; index < Math.min(line.values.length, start + buckets); index++) {
        const value = line.values[index] ?? null;
        if (value !== null && (peak === null || value > peak)) peak = value;
      }
      if (peak === null) flush();
      else points.push(`${x(start).toFixed(1)},${y(peak).toFixed(1)}`);
    }
    if (points.length === 1) points.push(points[0] as string);
    flush();
  }
  if (selected >= 0 && selected < calls.length) {
    root.append(svg('line', { x1: x(selected), x2: x(selected), y1: MARGIN.top, y2: MARGIN.top + plotHeight, class: 'cursor' }));
  }
  const hoverLine = svg('line', { x1: 0, x2: 0, y1: MARGIN.top, y2: MARGIN.top + plotHeight, class: 'hover-line', visibility: 'hidden' });
  root.append(hoverLine);
  const tooltip = el('div', 'chart-tooltip');
  tooltip.id = 'chart-tooltip';
  tooltip.setAttribute('role', 'status');
  tooltip.hidden = true;
  const showTip = (index: number) => {
    chartHover = Math.max(0, Math.min(calls.length - 1, index));
    const lines = tooltipLines(model, chartHover);
    tooltip.replaceChildren(...lines.map((text, at) => el('div', at === 0 ? 'tip-head' : '', text)));
    tooltip.hidden = lines.length === 0;
    const at = x(chartHover);
    hoverLine.setAttribute('x1', String(at));
    hoverLine.setAttribute('x2', String(at));
    hoverLine.setAttribute('visibility', 'visible');
    // Beside the line, on whichever side has room: the tooltip never runs off the chart.
    const left = at + 12 + 260 > width ? Math.max(0, at - 12 - 260) : at + 12;
    tooltip.style.left = `${left + Number.parseFloat(style.paddingLeft || '0')}px`;
    tooltip.style.top = `${MARGIN.top + 4}px`;
  };
  const hideTip = () => {
    tooltip.hidden = true;
    hoverLine.setAttribute('visibility', 'hidden');
  };
  const indexAt = (clientX: number) => {
    const box = root.getBoundingClientRect();
    const fraction = (clientX - box.left - MARGIN.left) / plotWidth;
    return Math.max(0, Math.min(calls.length - 1, Math.round(fraction * (calls.length - 1))));
  };
  root.addEventListener('mousemove', (event) => {
    if (calls.length > 0) showTip(indexAt(event.clientX));
  });
  root.addEventListener('mouseleave', () => (document.activeElement === root ? showTip(chartHover) : hideTip()));
  root.addEventListener('focus', () => showTip(chartHover >= 0 ? chartHover : Math.max(0, selected)));
  root.addEventListener('blur', hideTip);
  root.addEventListener('keydown', (event) => {
    if (calls.length === 0) return;
    const moves: Record<string, number> = { ArrowLeft: -1, ArrowRight: 1, PageUp: -10, PageDown: 10 };
    if (event.key in moves) showTip(chartHover + (moves[event.key] as number));
    else if (event.key === 'Home') showTip(0);
    else if (event.key === 'End') showTip(calls.length - 1);
    else if (event.key === 'Enter') onPick(Math.max(0, chartHover));
    else return;
    event.preventDefault();
  });
  root.addEventListener('click', (event) => {
    if (calls.length > 0) onPick(indexAt(event.clientX));
  });
  const legend = el('div', 'legend');
  for (const line of all) {
    const button = el('button', `key ${line.className}`, line.name);
    button.setAttribute('type', 'button');
    button.setAttribute('aria-pressed', String(!chartHidden.has(line.key)));
    button.title = chartHidden.has(line.key) ? `show ${line.name}` : `hide ${line.name}`;
    button.addEventListener('click', () => {
      if (chartHidden.has(line.key)) chartHidden.delete(line.key);
      else chartHidden.add(line.key);
      drawPressureChart(container, model, selected, onPick);
      (container.querySelector(`.legend .${line.className}`) as HTMLElement | null)?.focus();
    });
    legend.append(button);
  }
  const present = new Set(marks.map((mark) => mark.className));
  const markNames: ReadonlyArray<readonly [string, string]> = [
    ['m-compaction', '▤ compaction'],
    ['m-prune', '✂ prune'],
    ['m-rewrite', `⇄ ${REWRITE_KIND_NAMES.rewrite}`],
    ['m-switch', '⇆ model switch'],
  ];
  for (const [className, name] of markNames) if (present.has(className)) legend.append(el('span', `mark-key ${className}`, name));
  if (hidden(calls)) legend.append(el('span', 'muted', 'no call yet'));
  container.replaceChildren(root, tooltip, legend);
  if (chartHover >= 0 && document.activeElement === root) showTip(chartHover);
}

function hidden(calls: readonly CallSummary[]): boolean {
  return calls.length === 0;
}
