/// <reference lib="dom" />
// The detail panel of what the timeline selected: a call (its digest check, the change from the
// call before, the surface it was sent beside the record), a compaction (trigger, policy,
// tokens, summarizer and its own request, failure, lock), a prune, a new lifecycle.

import { whatifCommandLine } from '../../whatif/command-line.js';
import type { CallView, CompactionView } from '../view-data.js';
import { costText, count, counted, estimateText, reportedText } from './call-figures.js';
import { type ClientRewrite, clientRewriteOf, REWRITE_KIND_NAMES } from './client-rewrites.js';
import { eventList, recordList, showEvent, surfaceList } from './node-lists.js';
import type { SessionModel } from './session-model.js';
import type { ReplacementKind } from './surface-diff.js';
import { el, invisibleNote, shortDigest } from './text.js';

function field(list: HTMLElement, name: string, value: string): void {
  list.append(el('dt', '', name), el('dd', '', value));
}

function checkBadge(call: CallView): HTMLElement[] {
  const { check } = call;
  if (check.status === 'verified') {
    const badge = el('span', 'badge verified', `✓ digest verified · sha256 ${shortDigest(check.digest)}`);
    badge.id = 'digest-badge';
    badge.title = check.digest;
    return [badge];
  }
  if (check.status === 'off-surface') {
    // The bytes are proven, no surface is: the badge says which, never "digest verified" alone.
    const badge = el(
      'span',
      'badge off-surface',
      `⚠ not on the session's surface · its body's bytes match sha256 ${shortDigest(check.digest)}`,
    );
    badge.id = 'digest-badge';
    badge.title = check.digest;
    return [badge];
  }
  if (check.status === 'pending') {
    const badge = el('span', 'badge reconstructed', '… checking the digest');
    badge.id = 'digest-badge';
    return [badge];
  }
  if (check.status === 'reconstructed') {
    const badge = el('span', 'badge reconstructed', '◌ reconstructed: imported from another harness, no digest to check');
    badge.id = 'digest-badge';
    return [badge];
  }
  const badge = el('span', 'badge failed', `✗ digest check failed: ${check.code}`);
  badge.id = 'digest-badge';
  return [badge, el('p', 'error', check.message)];
}

function seqList(seqs: readonly number[]): string {
  return seqs.length <= 12 ? seqs.map((seq) => `#${seq}`).join(', ') : `#${seqs[0]} … #${seqs[seqs.length - 1]} (${seqs.length})`;
}

/** The body a proxied call's model/request stored, for reading: indented when it is JSON, cut past `limit` characters. */
function bodyText(model: SessionModel, call: CallView, limit = 200_000): string {
  const body = model.event(call.seq)?.data?.requestBody;
  if (typeof body?.text !== 'string') return '(the request body is not in the log)';
  const wire = `shadowlog replay ${model.sessionId} --turn ${call.turn} --step ${call.step} --wire`;
  let text: string;
  if (body.encoding === 'base64') {
    text = `(not UTF-8: the bytes as base64; ${wire} prints them)\n${body.text}`;
  } else {
    try {
      text = `(parsed and indented; ${wire} prints the exact bytes)\n${JSON.stringify(JSON.parse(body.text), null, 2)}`;
    } catch {
      text = `(not JSON: the text as received; ${wire} prints the exact bytes)\n${body.text}`;
    }
  }
  return text.length > limit ? `${text.slice(0, limit)}… (${text.length - limit} more characters)` : text;
}

/** A call off the surface: what it sent is its body, not the session's surface; the record beside it marks nothing as sent. */
function renderOffSurfaceCall(
  panel: HTMLElement,
  model: SessionModel,
  call: CallView,
  head: HTMLElement,
  facts: HTMLElement,
): HTMLElement[] {
  const box = el('div', 'node-detail');
  box.id = 'node-detail';
  box.setAttribute('aria-live', 'polite');
  const { list: record, bar: recordBar } = recordList(model, call.seq, new Set(), box);
  const note = el('section', 'diff off-surface-note');
  note.id = 'diff';
  note.append(
    el('h3', '', "Not on the session's surface"),
    el(
      'p',
      '',
      `${call.offSurface ?? ''}. The proxy recorded this call with its bytes, but none of the session's events is what it sent: the body below is.${call.unrecordedAnswer === undefined ? '' : ' Its answer was kept as it arrived, not appended to the surface.'}`,
    ),
  );
  const text = bodyText(model, call);
  const body = el('pre', 'detail-text request-body', text);
  body.id = 'request-body';
  const hidden = invisibleNote(text);
  const columns = el('div', 'columns');
  const left = el('section', 'column');
  left.append(el('h3', '', 'Request body as the proxy received it'), ...(hidden === undefined ? [] : [hidden]), body);
  const right = el('section', 'column');
  right.append(el('h3', '', `Record up to #${call.seq}: everything that happened`), recordBar, record.element);
  columns.append(left, right);
  panel.replaceChildren(head, facts, note, columns, box);
  record.render();
  record.scrollToIndex(record.size - 1);
  record.render();
  return [record.element];
}

const REPLACEMENT_LABELS: Readonly<Record<ReplacementKind, string>> = {
  compacted: '▤ compacted',
  pruned: '✂ pruned',
  masked: '▦ masked',
  replaced: '⇄ replaced',
};

function diffSection(model: SessionModel, index: number): HTMLElement {
  const diff = model.diffOf(index);
  const section = el('section', 'diff');
  section.id = 'diff';
  const previous = model.calls[index - 1];
  section.append(
    el('h3', '', previous === undefined ? 'First call: its whole surface' : `Change from call ${previous.turn}.${previous.step}`),
  );
  const list = el('ul');
  if (diff.appended.length > 0) list.append(el('li', 'appended', `+ ${diff.appended.length} appended: ${seqList(diff.appended)}`));
  for (const change of diff.replaced) {
    const rewrite =
      change.kind === 'replaced' ? clientRewriteOf(model.structureAt(change.seq), (seq) => model.structureAt(seq)) : undefined;
    const what = rewrite === undefined ? REPLACEMENT_LABELS[change.kind] : `⇄ ${REWRITE_KIND_NAMES[rewrite.kind]} (by the client)`;
    list.append(el('li', change.kind, `${what}: ${seqList(change.shadowed)} → #${change.seq}`));
  }
  if (diff.removed.length > 0)
    list.append(el('li', 'error', `− ${diff.removed.length} gone without a replacement: ${seqList(diff.removed)}`));
  if (list.childElementCount === 0) list.append(el('li', '', 'no change'));
  section.append(list);
  return section;
}

/**
 * Call `index`'s panel, once its details (and the call's before it, for the change) are loaded;
 * `current` says whether it is still the one to show when they are.
 */
export async function renderCall(panel: HTMLElement, model: SessionModel, index: number, current: () => boolean): Promise<HTMLElement[]> {
  const summary = model.calls[index];
  if (summary === undefined) return [];
  if (model.callDetail(index) === undefined || (index > 0 && model.callDetail(index - 1) === undefined)) {
    const head = el('div', 'panel-head');
    head.append(el('h2', '', `Model call ${summary.turn}.${summary.step}`), el('span', 'badge reconstructed', 'loading its details…'));
    panel.replaceChildren(head);
  }
  try {
    await model.loadSurface(index);
    if (model.calls[index]?.offSurface === true) await model.loadEvents([summary.seq]);
  } catch (error) {
    if (current())
      panel.replaceChildren(
        el(
          'p',
          'error',
          `call ${summary.turn}.${summary.step} could not be loaded: ${error instanceof Error ? error.message : String(error)}`,
        ),
      );
    return [];
  }
  if (!current()) return [];
  return drawCall(panel, model, index);
}

function drawCall(panel: HTMLElement, model: SessionModel, index: number): HTMLElement[] {
  const call = model.callDetail(index) as CallView;
  const head = el('div', 'panel-head');
  head.append(el('h2', '', `Model call ${call.turn}.${call.step}`), ...checkBadge(call));
  const facts = el('dl', 'facts');
  field(facts, 'event', `#${call.seq} · ${call.provenance}`);
  field(facts, 'model', `${call.provider}/${call.model}${call.rendererVersion === null ? '' : ` · renderer ${call.rendererVersion}`}`);
  if (call.offSurface === undefined) {
    field(
      facts,
      'surface',
      `${counted(call.surfaceLength, 'node', 'nodes', count(call.surfaceLength))}${call.contextWindow === null ? '' : `; it ran in a window of ${count(call.contextWindow)} tokens`}`,
    );
  } else {
    field(
      facts,
      'surface',
      `none: not on the session's surface (the session's ${counted(call.surfaceLength, 'node')} here are not what it sent)`,
    );
  }
  field(facts, 'estimated', estimateText(call, model.meter?.estimator));
  field(facts, 'reported', reportedText(call));
  field(facts, 'cost', costText(call, model.prices));
  field(facts, 'recorded digest', call.recordedDigest ?? 'none');
  if (call.error !== undefined) field(facts, 'error', `#${call.error.seq} ${call.error.code}: ${call.error.message}`);
  if (call.unrecordedAnswer !== undefined) {
    const answer = call.unrecordedAnswer;
    field(facts, 'answer', `#${answer.seq} kept as it arrived, not on the surface (${answer.code}): ${answer.message}`);
  }
  field(facts, 'replay', `shadowlog replay ${model.sessionId} --turn ${call.turn} --step ${call.step}`);
  if (call.offSurface !== undefined) return renderOffSurfaceCall(panel, model, call, head, facts);
  const replacements = model.surfaceOf(index).filter((seq) => model.structureAt(seq)?.surfaceOp?.op === 'replace');
  if (replacements.length > 0) askAgainField(facts, model.sessionId, call, replacements.length);
  const box = el('div', 'node-detail');
  box.id = 'node-detail';
  box.setAttribute('aria-live', 'polite');
  const surface = surfaceList(model, index, box);
  const onSurface = new Set(model.surfaceOf(index));
  const { list: record, bar: recordBar } = recordList(model, call.seq, onSurface, box);
  const columns = el('div', 'columns');
  const left = el('section', 'column');
  left.append(el('h3', '', 'Surface: what the model was sent'), surface.element);
  const right = el('section', 'column');
  right.append(el('h3', '', `Record up to #${call.seq}: everything that happened`), recordBar, record.element);
  columns.append(left, right);
  panel.replaceChildren(head, facts, diffSection(model, index), columns, box);
  surface.render();
  record.render();
  record.scrollToIndex(record.size - 1);
  record.render();
  return [surface.element, record.element];
}

/** The command that asks this call again with the originals its surface's replacements stand for, to copy. */
function askAgainField(facts: HTMLElement, sessionId: string, call: CallView, replacements: number): void {
  const command = el('code', 'command', whatifCommandLine(sessionId, call));
  command.id = 'ask-again';
  const value = el('dd', '');
  value.append(
    command,
    el(
      'span',
      'note',
      ` — would the model have answered differently? It asks the model again with the originals of the ${counted(replacements, 'replacement')} on this surface restored, and records that call in a what-if session (docs/whatif.md); nothing is sent from this page`,
    ),
  );
  facts.append(el('dt', '', 'ask again'), value);
}

function policyStrategy(model: SessionModel, compaction: CompactionView): string | null {
  return model.policies.find((candidate) => candidate.seq === compaction.policySeq)?.strategy ?? null;
}

function compactionBadge(compaction: CompactionView): HTMLElement {
  const text: Record<CompactionView['outcome'], string> = {
    compacted: '✓ compacted',
    failed: `✗ failed${compaction.error === undefined ? '' : `: ${compaction.error.reason}`}`,
    open: '⚠ open lock: no compaction/end',
    stale: '◌ orphan lock, made stale',
  };
  const badge = el('span', `badge outcome-${compaction.outcome}`, text[compaction.outcome]);
  badge.id = 'compaction-badge';
  return badge;
}

export function renderCompaction(panel: HTMLElement, model: SessionModel, compaction: CompactionView): HTMLElement[] {
  const head = el('div', 'panel-head');
  head.append(el('h2', '', `Compaction ${compaction.compactionId.slice(0, 8)}`), compactionBadge(compaction));
  const facts = el('dl', 'facts');
  field(facts, 'id', compaction.compactionId);
  field(
    facts,
    'trigger',
    `${compaction.trigger}${compaction.turn === null ? ' (between turns)' : ` in turn ${compaction.turn}`} · started at #${compaction.startSeq}`,
  );
  field(facts, 'strategy', compaction.strategy ?? policyStrategy(model, compaction) ?? 'summary (recorded before strategies)');
  const policy = compaction.policySeq === null ? undefined : model.policies.find((candidate) => candidate.seq === compaction.policySeq);
  if (policy === undefined) field(facts, 'policy', 'none recorded');
  else {
    field(
      facts,
      'policy',
      `#${policy.seq} ${policy.provider}/${policy.model}: threshold ${count(policy.threshold)}, retained tail ${count(policy.retain)} (window ${count(policy.contextWindow)}, reserve ${count(policy.reserve)}, fixed ${count(policy.fixedTokens)}; set by ${policy.decidedBy ?? 'a rule not recorded'}, estimator ${policy.estimator ?? 'not recorded'})`,
    );
    field(facts, 'configuration', JSON.stringify(policy.config));
  }
  const summary = compaction.summary;
  if (summary !== undefined) {
    field(
      facts,
      'tokens',
      `surface ${summary.tokensBefore ?? '?'} → ${summary.tokensAfter ?? '?'}; ${counted(summary.shadowedSeqs.length, 'node')} of ${counted(summary.shadowedTokenCount, 'token')} replaced by a summary of ${summary.summaryTokens ?? '?'}`,
    );
    const usage = summary.usage === null ? 'no usage' : `${summary.usage.inputTokens} in, ${summary.usage.outputTokens} out`;
    field(
      facts,
      'summarizer',
      `${summary.summarizer}: ${summary.provider}/${summary.model}, ${usage}, ${summary.durationMs ?? '?'} ms${summary.targetTokens === null ? '' : `, aimed at ${summary.targetTokens} tokens`}`,
    );
    const check = summary.check;
    const checkText =
      check.status === 'verified'
        ? `✓ its own request verified · sha256 ${shortDigest(check.digest)} (shadowlog replay ${model.sessionId} --compaction ${compaction.compactionId.slice(0, 8)})`
        : check.status === 'none'
          ? check.message
          : check.status === 'pending'
            ? '… being checked (the follow stream brings it)'
            : `✗ ${check.code}: ${check.message}`;
    const dd = el('dd', `summary-check ${check.status}`, checkText);
    facts.append(el('dt', '', 'summarizer request'), dd);
  }
  if (compaction.error !== undefined)
    field(
      facts,
      'failure',
      `${compaction.error.reason}${compaction.error.code === undefined ? '' : ` (${compaction.error.code})`}: ${compaction.error.message}`,
    );
  if (compaction.outcome === 'open') {
    field(
      facts,
      'lock',
      `compaction/start #${compaction.startSeq} has no compaction/end: while it stands, every later compaction in this lifecycle fails busy. If no process is compacting, \`shadowlog unlock ${model.sessionId} --reason …\` makes it stale.`,
    );
  }
  if (compaction.staleBy !== undefined)
    field(facts, 'lock', `stale since session/end-seed #${compaction.staleBy.seq}: ${compaction.staleBy.reason}`);
  const nodes: HTMLElement[] = [];
  const parts: HTMLElement[] = [head, facts];
  if (compaction.replacementSeq !== undefined) {
    const origins = model.originsOf(compaction.replacementSeq);
    const box = el('div', 'node-detail');
    box.id = 'node-detail';
    const list = eventList('originals', `the originals of #${compaction.replacementSeq}`, model, origins, box);
    const section = el('section', 'column wide');
    section.append(
      el('h3', '', `Replaced by #${compaction.replacementSeq}, which stands for these ${origins.length} originals`),
      list.element,
    );
    parts.push(section, box);
    nodes.push(list.element);
    panel.replaceChildren(...parts);
    list.render();
    // Until an original is picked, the box shows the summary that replaced them.
    showEvent(box, model, compaction.replacementSeq, 'the summary that replaced them');
    return nodes;
  }
  panel.replaceChildren(...parts);
  return nodes;
}

export function renderPrune(panel: HTMLElement, model: SessionModel, seq: number): HTMLElement[] {
  const prune = model.prunes.get(seq);
  const head = el('div', 'panel-head');
  head.append(el('h2', '', `Prune #${seq}`));
  const facts = el('dl', 'facts');
  if (prune === undefined) {
    panel.replaceChildren(head, el('p', 'error', `no prune at #${seq}`));
    return [];
  }
  field(
    facts,
    'tool result',
    `#${prune.shadowedSeq}, ${prune.charsBefore} → ${prune.charsAfter} characters (${prune.shadowedTokenCount} → ${prune.replacementTokenCount ?? '?'} tokens)`,
  );
  field(facts, 'replaced by', prune.replacementSeq === undefined ? 'not yet' : `#${prune.replacementSeq}`);
  if (prune.unseen) field(facts, 'note', 'the model had not been sent the whole result before it was pruned');
  const box = el('div', 'node-detail');
  box.id = 'node-detail';
  const list = eventList('originals', `the original of #${seq}`, model, [prune.shadowedSeq], box);
  const section = el('section', 'column wide');
  section.append(el('h3', '', 'The original tool result'), list.element);
  panel.replaceChildren(head, facts, section, box);
  list.render();
  return [list.element];
}

export function renderEvent(panel: HTMLElement, model: SessionModel, seq: number, title: string): HTMLElement[] {
  const head = el('div', 'panel-head');
  head.append(el('h2', '', title));
  const box = el('div', 'node-detail');
  box.id = 'node-detail';
  const list = eventList('event', title, model, [seq], box);
  panel.replaceChildren(head, list.element, box);
  list.render();
  list.select(0, { scroll: false });
  return [list.element];
}

export function renderRewrite(panel: HTMLElement, model: SessionModel, rewrite: ClientRewrite): HTMLElement[] {
  const head = el('div', 'panel-head');
  head.append(
    el('h2', '', `${REWRITE_KIND_NAMES[rewrite.kind]} #${rewrite.seq}`),
    el('span', 'badge rewrite', 'by the client, not by shadowlog'),
  );
  const facts = el('dl', 'facts');
  field(facts, 'what', rewrite.label);
  field(
    facts,
    'how',
    `the client sent a history that does not extend the surface; the proxy recorded #${rewrite.seq} in place of ${seqList(rewrite.sources)} (the originals stay in the log)`,
  );
  const copyOf = model.structureAt(rewrite.seq)?.data.copyOf;
  if (typeof copyOf === 'number') field(facts, 'copy of', `#${copyOf}`);
  const box = el('div', 'node-detail');
  box.id = 'node-detail';
  const list = eventList('originals', `the originals #${rewrite.seq} replaced`, model, rewrite.sources, box);
  const section = el('section', 'column wide');
  section.append(el('h3', '', `Replaced by #${rewrite.seq}: these ${rewrite.sources.length} events`), list.element);
  panel.replaceChildren(head, facts, section, box);
  list.render();
  showEvent(box, model, rewrite.seq, 'what took their place');
  return [list.element];
}
