/// <reference lib="dom" />
// The token-pressure chart: per call, the meter's estimate and the provider-reported input,
// cache reads, the policy's threshold and retained tail, and where compactions and prunes
// happened. Drawn as SVG built element by element; a long session is bucketed to the width.

import type { SessionModel } from './session-model.js';
import { el } from './text.js';

const SVG = 'http://www.w3.org/2000/svg';
const HEIGHT = 190;
const MARGIN = { left: 56, right: 12, top: 10, bottom: 22 };

function svg(tag: string, attributes: Record<string, string | number>): SVGElement {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  return element;
}

interface Series {
  readonly name: string;
  readonly className: string;
  readonly values: ReadonlyArray<number | null>;
}

/** Draws the chart into `container`; a click picks the nearest call. */
export function drawPressureChart(container: HTMLElement, model: SessionModel, selected: number, onPick: (index: number) => void): void {
  const calls = model.calls;
  const style = getComputedStyle(container);
  const inner = container.clientWidth - Number.parseFloat(style.paddingLeft) - Number.parseFloat(style.paddingRight);
  const width = Math.max(320, Number.isFinite(inner) && inner > 0 ? inner : 900);
  const plotWidth = width - MARGIN.left - MARGIN.right;
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const policies = calls.map((call) => model.policyAt(call.seq));
  const series: Series[] = [
    {
      name: 'estimated input',
      className: 's-estimated',
      values: calls.map((call) => call.metered?.estimatedTokens ?? call.estimatedTokens),
    },
    { name: 'reported input', className: 's-reported', values: calls.map((call) => call.usage?.inputTokens ?? null) },
    { name: 'cache reads', className: 's-cache', values: calls.map((call) => call.usage?.cacheReadTokens ?? null) },
    { name: 'threshold', className: 's-threshold', values: policies.map((policy) => policy?.threshold ?? null) },
    { name: 'retained tail', className: 's-retain', values: policies.map((policy) => policy?.retain ?? null) },
  ];
  let top = 1;
  for (const line of series) for (const value of line.values) if (value !== null && value > top) top = value;
  top *= 1.08;
  const x = (index: number) => MARGIN.left + (calls.length <= 1 ? plotWidth / 2 : (index / (calls.length - 1)) * plotWidth);
  const y = (value: number) => MARGIN.top + plotHeight - (value / top) * plotHeight;

  const root = svg('svg', { width, height: HEIGHT, viewBox: `0 0 ${width} ${HEIGHT}`, role: 'img', id: 'pressure-chart' });
  root.setAttribute('aria-label', `token pressure over ${calls.length} model calls`);
  root.append(svg('rect', { x: MARGIN.left, y: MARGIN.top, width: plotWidth, height: plotHeight, class: 'plot' }));
  for (const fraction of [0, 0.5, 1]) {
    const value = Math.round(top * fraction);
    root.append(svg('line', { x1: MARGIN.left, x2: MARGIN.left + plotWidth, y1: y(value), y2: y(value), class: 'grid' }));
    const label = svg('text', { x: MARGIN.left - 6, y: y(value) + 4, class: 'axis', 'text-anchor': 'end' });
    label.textContent = String(value);
    root.append(label);
  }
  // Compaction and prune points: between the last call before the replacement and the first after.
  const marks: Array<{ seq: number; className: string }> = [];
  for (const compaction of model.compactions.values())
    if (compaction.replacementSeq !== undefined) marks.push({ seq: compaction.replacementSeq, className: 'm-compaction' });
  for (const prune of model.prunes.values())
    if (prune.replacementSeq !== undefined) marks.push({ seq: prune.replacementSeq, className: 'm-prune' });
  for (const mark of marks) {
    const after = calls.findIndex((call) => call.seq > mark.seq);
    if (after <= 0) continue;
    const at = (x(after - 1) + x(after)) / 2;
    root.append(svg('line', { x1: at, x2: at, y1: MARGIN.top, y2: MARGIN.top + plotHeight, class: `mark ${mark.className}` }));
  }
  const buckets = Math.max(1, Math.ceil(calls.length / plotWidth));
  for (const line of series) {
    const points: string[] = [];
    for (let start = 0; start < line.values.length; start += buckets) {
      let peak: number | null = null;
      for (let index = start; index < Math.min(line.values.length, start + buckets); index++) {
        const value = line.values[index] ?? null;
        if (value !== null && (peak === null || value > peak)) peak = value;
      }
      if (peak !== null) points.push(`${x(start).toFixed(1)},${y(peak).toFixed(1)}`);
    }
    if (points.length > 0) root.append(svg('polyline', { points: points.join(' '), class: `series ${line.className}` }));
  }
  if (selected >= 0 && selected < calls.length) {
    root.append(svg('line', { x1: x(selected), x2: x(selected), y1: MARGIN.top, y2: MARGIN.top + plotHeight, class: 'cursor' }));
  }
  root.addEventListener('click', (event) => {
    if (calls.length === 0) return;
    const box = root.getBoundingClientRect();
    const fraction = (event.clientX - box.left - MARGIN.left) / plotWidth;
    onPick(Math.max(0, Math.min(calls.length - 1, Math.round(fraction * (calls.length - 1)))));
  });
  const legend = el('div', 'legend');
  for (const line of series) {
    const item = el('span', `key ${line.className}`, line.name);
    legend.append(item);
  }
  legend.append(el('span', 'key m-compaction', 'compaction'), el('span', 'key m-prune', 'prune'));
  container.replaceChildren(root, legend);
}
