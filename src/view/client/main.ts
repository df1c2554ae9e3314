/// <reference lib="dom" />
// The audit page's entry: reads the first document from its non-executable JSON block (the
// session's structure and every call's figures), draws the header, the chart, the timeline and
// the panel of what is selected, loading content as the panel needs it (from the file's own
// blocks, or from a served page's server), and, on a served page, follows the session over
// server-sent events: the checks, the meter's estimates, and what lands.

import type { PageDelta, PageDocument } from '../view-data.js';
import { count, counted, rowTokens } from './call-figures.js';
import { REWRITE_KIND_NAMES } from './client-rewrites.js';
import { fileSource, serverSource } from './page-source.js';
import { renderCall, renderCompaction, renderEvent, renderPrune, renderRewrite } from './panels.js';
import { drawPressureChart } from './pressure-chart.js';
import { SessionModel, type TimelineItem } from './session-model.js';
import { el, shortDigest } from './text.js';
import { renderTune } from './tune-panel.js';
import { VirtualList } from './virtual-list.js';

const TIMELINE_ROW = 26;

function readDocument(): PageDocument {
  const block = document.getElementById('shadowlog-data');
  const parsed: unknown = JSON.parse(block?.textContent ?? 'null');
  if (parsed === null || typeof parsed !== 'object' || (parsed as { kind?: unknown }).kind !== 'shadowlog-view') {
    throw new Error('this page holds no shadowlog view data');
  }
  return parsed as PageDocument;
}

function start(): void {
  const root = document.getElementById('app') as HTMLElement;
  const viewDocument = readDocument();
  const model = new SessionModel();
  model.source = viewDocument.live ? serverSource() : fileSource();
  model.merge(viewDocument.session);
  model.meter = viewDocument.meter ?? null;
  model.prices = viewDocument.prices ?? null;
  model.window = viewDocument.window ?? null;
  model.branches = viewDocument.branches ?? null;
  document.title = `shadowlog view · ${model.sessionId}`;

  const header = el('header', 'summary');
  header.id = 'summary';
  const status = el('span', 'status');
  status.id = 'follow-status';
  const chart = el('section', 'chart');
  chart.id = 'chart';
  const panel = el('section', 'panel');
  panel.id = 'panel';
  const tunePanel = el('section', 'tune');
  tunePanel.id = 'tune';
  let selectedCall = -1;
  let panelLists: HTMLElement[] = [];

  const timeline = new VirtualList({
    id: 'timeline',
    label: 'timeline of turns, model calls and compactions',
    rowHeight: TIMELINE_ROW,
    render: (index, row) => timelineRow(model, model.timeline[index] as TimelineItem, row),
    onSelect: (index) => show(model.timeline[index] as TimelineItem),
    onKey: (key) => {
      if (key !== 'Enter' && key !== 'ArrowRight') return false;
      // A call's panel may still be loading its details: its first list is entered once it is drawn.
      void panelReady.then(() => panelLists[0]?.focus());
      return true;
    },
  });

  // Each selection draws its panel; a call's waits for its details, and a later selection wins.
  let shown = 0;
  let panelReady: Promise<void> = Promise.resolve();
  const show = (item: TimelineItem) => {
    const mine = ++shown;
    panelReady = Promise.resolve();
    if (item.kind === 'call') {
      selectedCall = model.callIndexBySeq.get(item.seq) ?? -1;
      panelLists = [];
      if (selectedCall >= 0) {
        panelReady = renderCall(panel, model, selectedCall, () => mine === shown).then((lists) => {
          if (mine === shown) panelLists = lists;
        });
      }
    } else if (item.kind === 'compaction') {
      selectedCall = -1;
      const compaction = model.compactionAt(item.seq);
      panelLists = compaction === undefined ? [] : renderCompaction(panel, model, compaction);
    } else if (item.kind === 'prune') {
      panelLists = renderPrune(panel, model, item.seq);
    } else if (item.kind === 'rewrite') {
      panelLists = renderRewrite(panel, model, item.rewrite);
    } else if (item.kind === 'switch') {
      panelLists = renderEvent(panel, model, item.seq, `Model switch at #${item.seq}: ${item.from} → ${item.to}`);
    } else if (item.kind === 'seed') {
      panelLists = renderEvent(panel, model, item.seq, `New lifecycle #${item.seq}`);
    } else {
      panelLists = renderEvent(panel, model, item.seq, `Turn ${item.turn}`);
    }
    drawPressureChart(chart, model, selectedCall, pickCall);
  };
  const pickCall = (index: number) => {
    const seq = model.calls[index]?.seq;
    const at = model.timeline.findIndex((item) => item.kind === 'call' && item.seq === seq);
    if (at >= 0) timeline.select(at);
  };

  const refresh = (changed?: PageDelta) => {
    // The call on show got its answer or its check: draw it again (unless the reader is in its lists).
    const selected = model.timeline[timeline.selected];
    const reading = panelLists.some((list) => list.contains(document.activeElement));
    if (changed !== undefined && !reading && selected?.kind === 'call' && changed.calls.some((call) => call[0] === selected.seq))
      show(selected);
    drawSummary(header, model, status);
    timeline.setCount(model.timeline.length);
    drawPressureChart(chart, model, selectedCall, pickCall);
  };

  const timelineSection = el('nav', 'timeline');
  timelineSection.append(el('h2', '', 'Timeline'), timeline.element);
  const body = el('div', 'body');
  body.append(timelineSection, panel);
  root.replaceChildren(header, chart, body, tunePanel);
  if (viewDocument.tune !== null && viewDocument.tune !== undefined) renderTune(tunePanel, viewDocument.tune);
  else tunePanel.hidden = true;
  refresh();
  const firstCall = model.timeline.findIndex((item) => item.kind === 'call');
  timeline.select(Math.max(firstCall, 0));
  // When the first call's panel stands beside the chart (the benchmark reads it).
  void panelReady.then(() => performance.mark('shadowlog-first-call'));
  timeline.element.focus({ preventScroll: true });

  // Tab moves between the timeline and the panel's lists; Escape goes back to the timeline.
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') {
      timeline.element.focus();
      event.preventDefault();
    }
  });

  // Followed once the first call is drawn: the stream's checks keep the server busy, and the first panel's requests come first.
  if (viewDocument.live) void panelReady.then(() => follow(model, status, refresh));
}

function follow(model: SessionModel, status: HTMLElement, refresh: (changed: PageDelta) => void): void {
  const source = new EventSource(`events?from=${model.eventCount}`);
  const checking = () => {
    const pending = model.calls.filter((call) => call.status === 'pending').length;
    return pending === 0 && model.chain.checked !== false
      ? ''
      : ` · checking: ${count(model.calls.length - pending)} of ${count(model.calls.length)} calls`;
  };
  // The deltas merged since the page was last drawn. A long session's page takes a while to draw
  // (its chart spans every call): it is drawn again no sooner than three times that after the
  // last drawing, so that following never keeps the page from answering the reader.
  let unshown: PageDelta[] = [];
  let scheduled = false;
  let drawnAt = 0;
  let drawMs = 0;
  let stopped = false;
  const show = () => {
    scheduled = false;
    const deltas = unshown;
    unshown = [];
    const last = deltas.at(-1);
    if (last === undefined) return;
    const started = performance.now();
    if (!stopped) status.textContent = `following: live · ${count(model.eventCount)} events${checking()}`;
    refresh(deltas.length === 1 ? last : { ...last, calls: deltas.flatMap((delta) => delta.calls) });
    drawnAt = performance.now();
    drawMs = drawnAt - started;
  };
  status.textContent = 'following: connecting…';
  source.addEventListener('open', () => {
    status.textContent = `following: live · ${count(model.eventCount)} events${checking()}`;
  });
  source.addEventListener('delta', (message) => {
    const delta = JSON.parse((message as MessageEvent<string>).data) as PageDelta;
    if (!model.merge(delta)) {
      stopped = true;
      status.textContent = `following stopped: the stream went on from #${delta.fromSeq}, the page holds ${model.eventCount} events; reload the page`;
      source.close();
      return;
    }
    unshown.push(delta);
    if (!scheduled) {
      scheduled = true;
      setTimeout(show, Math.max(0, drawnAt + drawMs * 3 - performance.now()));
    }
  });
  source.addEventListener('failure', (message) => {
    stopped = true;
    status.textContent = `following stopped: ${(message as MessageEvent<string>).data}`;
    source.close();
  });
  source.addEventListener('error', () => {
    status.textContent = 'following: connection lost, retrying…';
  });
}

function timelineRow(model: SessionModel, item: TimelineItem, row: HTMLElement): void {
  row.classList.add(`t-${item.kind}`);
  if (item.kind === 'turn') {
    row.append(el('span', 'label', `Turn ${item.turn}`), el('span', 'seq', `#${item.seq}`));
    return;
  }
  if (item.kind === 'call') {
    const call = model.calls[model.callIndexBySeq.get(item.seq) ?? -1];
    if (call === undefined) return;
    const marks = { verified: '✓', 'off-surface': '⚠', reconstructed: '◌', pending: '…', failed: '✗' } as const;
    const check = el('span', `check ${call.status}`, marks[call.status]);
    check.title =
      call.status === 'verified'
        ? 'digest verified'
        : call.status === 'off-surface'
          ? "not on the session's surface; the stored body's bytes match its digest"
          : call.status;
    const tokens = rowTokens(call);
    const tokensCell = el('span', 'tokens', tokens.text);
    tokensCell.title = tokens.title;
    row.append(check, el('span', 'label', `call ${call.turn}.${call.step}`), tokensCell);
    if (call.offSurface) row.append(el('span', 'tag off-surface', 'off the surface'));
    if (call.errorCode !== null) row.append(el('span', 'tag error', call.errorCode));
    return;
  }
  if (item.kind === 'compaction') {
    const compaction = model.compactionAt(item.seq);
    const summary = compaction?.summary;
    const figure = (tokens: number | null | undefined) => (typeof tokens === 'number' ? count(tokens) : 'unknown');
    const tokens = summary === undefined ? '' : ` ${figure(summary.tokensBefore)}→${figure(summary.tokensAfter)}`;
    // Short enough for the timeline's width: the id and the trigger are in the titles, and on the panel.
    const label = el('span', 'label', '▤ compaction');
    label.title = `compaction ${compaction?.compactionId ?? ''} (${compaction?.trigger ?? 'trigger unknown'})`;
    const tag = el('span', `tag outcome-${compaction?.outcome ?? 'open'}`, `${compaction?.outcome ?? 'open'}${tokens}`);
    tag.title = `${compaction?.trigger ?? ''} ${compaction?.outcome ?? ''}${tokens}`.trim();
    row.append(label, tag);
    return;
  }
  if (item.kind === 'prune') {
    const prune = model.prunes.get(item.seq);
    row.append(
      el('span', 'label', `✂ prune #${prune?.shadowedSeq ?? '?'}`),
      el('span', 'tag', `${prune?.charsBefore ?? '?'}→${prune?.charsAfter ?? '?'} chars`),
    );
    return;
  }
  if (item.kind === 'rewrite') {
    const label = el('span', 'label', `⇄ ${REWRITE_KIND_NAMES[item.rewrite.kind]}`);
    label.title = item.rewrite.label;
    row.append(label, el('span', `tag rewrite-${item.rewrite.kind}`, `${item.rewrite.sources.length} replaced`));
    return;
  }
  if (item.kind === 'switch') {
    const label = el('span', 'label', `⇆ model → ${item.to.split('/').at(-1) ?? item.to}`);
    label.title = `model switch: ${item.from} → ${item.to}`;
    row.append(label, el('span', 'seq', `#${item.seq}`));
    return;
  }
  row.append(el('span', 'label', '↻ new lifecycle'), el('span', 'seq', `#${item.seq}`));
}

function drawSummary(header: HTMLElement, model: SessionModel, status: HTMLElement): void {
  const statuses = new Map<string, number>();
  for (const call of model.calls) statuses.set(call.status, (statuses.get(call.status) ?? 0) + 1);
  const verified = statuses.get('verified') ?? 0;
  const offSurface = model.calls.filter((call) => call.offSurface).length;
  const failed = statuses.get('failed') ?? 0;
  const pending = statuses.get('pending') ?? 0;
  const reconstructed = statuses.get('reconstructed') ?? 0;
  const compactions = [...model.compactions.values()];
  const open = compactions.filter((compaction) => compaction.outcome === 'open').length;
  const title = el('h1', '', `shadowlog · ${model.sessionId}`);
  const rewrites = [...model.rewrites.values()];
  const kinds = new Map<string, number>();
  for (const rewrite of rewrites) kinds.set(REWRITE_KIND_NAMES[rewrite.kind], (kinds.get(REWRITE_KIND_NAMES[rewrite.kind]) ?? 0) + 1);
  const byClient = rewrites.filter((rewrite) => rewrite.kind === 'client-compaction').length;
  const rewriteText =
    rewrites.length === 0
      ? ''
      : ` · ${counted(rewrites.length, 'client rewrite')} (${[...kinds].map(([name, n]) => `${n} ${name}`).join(', ')})`;
  const switchText =
    model.switches.length === 0 ? '' : ` · ${model.switches.length} model switch${model.switches.length === 1 ? '' : 'es'}`;
  const facts = el(
    'p',
    'facts-line',
    `${counted(model.eventCount, 'event', 'events', count(model.eventCount))} · ${counted(model.calls.length, 'model call', 'model calls', count(model.calls.length))} (${count(verified)} digest-verified, ${reconstructed === 0 ? '' : `${count(reconstructed)} imported with no bytes to check, `}${offSurface === 0 ? '' : `${count(offSurface)} not on the session's surface, `}${count(failed)} failed${pending === 0 ? '' : `, ${count(pending)} being checked`}) · ${counted(compactions.length, 'compaction', 'compactions', count(compactions.length))} (${count(compactions.filter((c) => c.outcome === 'failed').length)} failed, ${counted(open, 'open lock', 'open locks', count(open))})${byClient === 0 ? '' : ` + ${count(byClient)} by the client`} · ${counted(model.prunes.size, 'prune', 'prunes', count(model.prunes.size))}${rewriteText}${switchText} · head ${shortDigest(model.headHash)}`,
  );
  const chain =
    model.chain.checked === false
      ? el('span', 'badge reconstructed', '… checking the hash chain')
      : model.chain.intact
        ? el('span', 'badge verified', '✓ hash chain intact')
        : el('span', 'badge failed', `✗ hash chain broken at #${model.chain.firstBrokenSeq}`);
  chain.id = 'chain-badge';
  const parts: HTMLElement[] = [title, chain, facts, windowLine(model), ...branchLines(model), status];
  for (const problem of model.problems) parts.push(el('p', 'error', `event #${problem.seq} refused (${problem.code}): ${problem.message}`));
  header.replaceChildren(...parts);
}

/** Where a branch forks from its parent, and the branches of this session, each with the command that shows it. */
function branchLines(model: SessionModel): HTMLElement[] {
  const branches = model.branches;
  if (branches === null) return [];
  const lines: HTMLElement[] = [];
  const parent = branches.parent;
  if (parent !== null) {
    const line = el(
      'p',
      'facts-line',
      `branch of ${parent.sessionId} after its event #${parent.forkSeq}: events 0–${parent.forkSeq} are ${parent.sessionId}'s, the rest this branch's own (shadowlog view ${parent.sessionId})`,
    );
    line.id = 'branch-parent';
    lines.push(line);
  }
  if (branches.children.length > 0) {
    const line = el(
      'p',
      'facts-line',
      `${counted(branches.children.length, 'branch', 'branches')}: ${branches.children.map((child) => `${child.sessionId} after #${child.forkSeq}`).join(', ')} (${branches.children.length === 1 ? `shadowlog view ${branches.children[0]?.sessionId}` : 'shadowlog view ID'})`,
    );
    line.id = 'branch-children';
    lines.push(line);
  }
  return lines;
}

function windowLine(model: SessionModel): HTMLElement {
  const window = model.window;
  const others = window === null || window.others.length === 0 ? '' : `; calls also record ${window.others.map(count).join(', ')}`;
  const text =
    window === null || window.tokens === null
      ? `window: unknown (${window?.rule ?? 'the log records none'})`
      : `window ${count(window.tokens)} tokens: ${window.rule}${others}`;
  const line = el('p', 'facts-line', text);
  line.id = 'session-window';
  return line;
}

try {
  start();
} catch (error) {
  const message = error instanceof Error ? error.message : String(error);
  document.body.replaceChildren(el('p', 'error', `shadowlog view could not start: ${message}`));
}
