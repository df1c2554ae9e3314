/// <reference lib="dom" />
// The lists of a call's panel: the surface it was sent (each replacement collapsed behind its
// node, expandable to the original events it stands for) and the record up to the call, with a
// box that shows the whole text of the row in focus. A row whose event's content is not loaded
// yet says so, and is drawn again when its block is in.

import { invisibleCount } from './invisible-text.js';
import { isSearchText } from './page-source.js';
import type { SessionModel } from './session-model.js';
import { type ClientEvent, el, eventLabel, eventText, invisibleNote, preview } from './text.js';
import { VirtualList } from './virtual-list.js';

export const ROW_HEIGHT = 26;

interface SurfaceRow {
  readonly seq: number;
  /** The replacement this original stands under (an expanded row), else undefined. */
  readonly parent?: number;
}

/** Replacements the reader has expanded, kept from call to call. */
export const expanded = new Set<number>();

/** Why content could not be loaded, once it could not: the rows say so instead of asking again. */
let loadFailure: string | undefined;

function failureOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The event at `seq` for a row of `list`, or undefined while its block loads: the rows that
 * asked are drawn again once it is in.
 */
function rowEvent(model: SessionModel, list: () => VirtualList, seq: number, wanted: Set<number>): ClientEvent | undefined {
  const event = model.event(seq);
  if (event !== undefined || loadFailure !== undefined) return event;
  if (wanted.size === 0) {
    queueMicrotask(() => {
      const seqs = [...wanted];
      wanted.clear();
      model.loadEvents(seqs).then(
        () => list().render(),
        (error: unknown) => {
          loadFailure = failureOf(error);
          list().render();
        },
      );
    });
  }
  wanted.add(seq);
  return undefined;
}

/** Shows the event at `seq` in the detail box, once its content is in. */
export function showEvent(box: HTMLElement, model: SessionModel, seq: number, note: string): void {
  const shown = model.event(seq);
  if (shown !== undefined) {
    showLoadedEvent(box, shown, note);
    return;
  }
  box.dataset.seq = String(seq);
  box.replaceChildren(el('p', 'muted', `loading #${seq}…`));
  model.loadEvents([seq]).then(
    () => {
      const event = model.event(seq);
      if (box.dataset.seq !== String(seq)) return;
      if (event === undefined) box.replaceChildren(el('p', 'error', `event #${seq} is not in the session`));
      else showLoadedEvent(box, event, note);
    },
    (error: unknown) => {
      if (box.dataset.seq === String(seq)) box.replaceChildren(el('p', 'error', `event #${seq} could not be loaded: ${failureOf(error)}`));
    },
  );
}

function showLoadedEvent(box: HTMLElement, event: ClientEvent, note: string): void {
  const seq = event.seq;
  box.dataset.seq = String(seq);
  const head = el('div', 'detail-head', `#${seq} ${eventLabel(event)} · ${event.time}${note === '' ? '' : ` · ${note}`}`);
  const text = eventText(event);
  const body = el('pre', 'detail-text', text);
  const hidden = invisibleNote(text);
  box.replaceChildren(...(hidden === undefined ? [head, body] : [head, hidden, body]));
}

function rowText(row: HTMLElement, model: SessionModel, seq: number, event: ClientEvent | undefined): void {
  row.append(el('span', 'seq', `#${seq}`));
  if (event === undefined) {
    const type = model.typeOf(seq) ?? '';
    const label = eventLabel({ type } as ClientEvent);
    row.append(el('span', `role role-${label.replace(/[^a-z]/g, '')}`, label));
    row.append(el('span', 'text muted', loadFailure === undefined ? 'loading…' : `could not be loaded: ${loadFailure}`));
    return;
  }
  row.append(el('span', `role role-${eventLabel(event).replace(/[^a-z]/g, '')}`, eventLabel(event)));
  const text = eventText(event);
  row.append(el('span', 'text', preview(text)));
  // Counted over the whole text: the preview may cut before the hidden part.
  const count = invisibleCount(text);
  if (count > 0) row.append(el('span', 'tag invisible-count', `⚠ ${count} invisible character${count === 1 ? '' : 's'}`));
}

/** The surface of call `index`, with a detail box. */
export function surfaceList(model: SessionModel, index: number, box: HTMLElement): VirtualList {
  const seqs = model.surfaceOf(index);
  let rows: SurfaceRow[] = [];
  const build = () => {
    rows = [];
    for (const seq of seqs) {
      rows.push({ seq });
      if (model.isReplacement(seq) && expanded.has(seq)) for (const origin of model.originsOf(seq)) rows.push({ seq: origin, parent: seq });
    }
  };
  const parentRow = (owner: number) => rows.findIndex((candidate) => candidate.seq === owner && candidate.parent === undefined);
  /** Opens or closes (or, with `open` undefined, flips) the replacement at or above row `at`. */
  const toggle = (at: number, open: boolean | undefined): boolean => {
    const row = rows[at];
    if (row === undefined) return false;
    const owner = row.parent ?? row.seq;
    if (!model.isReplacement(owner)) return false;
    const isOpen = expanded.has(owner);
    const wanted = open ?? !isOpen;
    if (wanted === isOpen) {
      if (row.parent === undefined || wanted) return false;
      list.select(parentRow(owner));
      return true;
    }
    if (wanted) expanded.add(owner);
    else expanded.delete(owner);
    build();
    list.setCount(rows.length);
    list.select(parentRow(owner));
    return true;
  };
  const wanted = new Set<number>();
  const list = new VirtualList({
    id: 'surface',
    label: `the surface call ${index + 1} was sent`,
    rowHeight: ROW_HEIGHT,
    render: (at, element) => {
      const row = rows[at] as SurfaceRow;
      const origins = row.parent === undefined && model.isReplacement(row.seq) ? model.originsOf(row.seq) : undefined;
      if (row.parent !== undefined) element.classList.add('origin');
      if (origins !== undefined) {
        element.classList.add('replacement');
        const button = el('button', 'toggle', expanded.has(row.seq) ? '▾' : '▸');
        button.setAttribute(
          'aria-label',
          `${expanded.has(row.seq) ? 'collapse' : 'expand'} the ${origins.length} originals of #${row.seq}`,
        );
        button.setAttribute('aria-expanded', String(expanded.has(row.seq)));
        button.tabIndex = -1;
        button.addEventListener('click', (event) => {
          event.stopPropagation();
          toggle(at, undefined);
        });
        element.append(button);
      }
      rowText(
        element,
        model,
        row.seq,
        rowEvent(model, () => list, row.seq, wanted),
      );
      if (origins !== undefined) element.append(el('span', 'tag', `stands for ${origins.length} originals`));
      if (row.parent !== undefined) element.append(el('span', 'tag', `original, shadowed by #${row.parent}`));
    },
    onSelect: (at) => {
      const row = rows[at] as SurfaceRow;
      const origins = model.isReplacement(row.seq) ? model.originsOf(row.seq) : undefined;
      const note =
        row.parent !== undefined
          ? `an original, shadowed by #${row.parent}: the model was not sent it on this call`
          : origins !== undefined
            ? `replaces ${origins.length} originals: #${origins.join(', #')}`
            : 'sent as appended';
      showEvent(box, model, row.seq, note);
    },
    onKey: (key, at) => {
      if (key === 'ArrowRight' || key === 'Enter' || key === ' ') return toggle(at, key === 'ArrowRight' ? true : undefined);
      if (key === 'ArrowLeft') return toggle(at, false);
      return false;
    },
  });
  build();
  list.setCount(rows.length);
  return list;
}

/** The record pane's filter, kept from call to call: source noise hidden by default, a type, a text to find. */
const recordFilter = { showNoise: false, type: '', query: '' };

/**
 * The record's rows up to `upToSeq` that the filter keeps, and how many source-noise events it
 * hides; `matches` are the events the search found (undefined: no search).
 */
function recordRows(model: SessionModel, upToSeq: number, matches: readonly number[] | undefined): { rows: number[]; hiddenNoise: number } {
  const rows: number[] = [];
  let hiddenNoise = 0;
  const keep = (seq: number) => {
    const type = model.typeOf(seq);
    if (type === undefined) return;
    if (!recordFilter.showNoise && model.noiseTypes.has(type)) {
      hiddenNoise++;
      return;
    }
    if (recordFilter.type !== '' && type !== recordFilter.type) return;
    rows.push(seq);
  };
  if (matches === undefined) {
    const last = Math.min(upToSeq, model.eventCount - 1);
    for (let seq = 0; seq <= last; seq++) keep(seq);
  } else {
    for (const seq of matches) if (seq <= upToSeq) keep(seq);
  }
  return { rows, hiddenNoise };
}

/**
 * The record up to the call at `seq`: its events, the ones on the call's surface marked, with a
 * filter bar: the source's noise (lines of another harness kept whole, as `show --record` leaves
 * them out) hidden with a count, a type, and a text to find, found as `shadowlog search` finds it.
 */
export function recordList(
  model: SessionModel,
  upToSeq: number,
  onSurface: ReadonlySet<number>,
  box: HTMLElement,
): { list: VirtualList; bar: HTMLElement } {
  let rows: number[] = [];
  const wanted = new Set<number>();
  const list: VirtualList = new VirtualList({
    id: 'record',
    label: `the record up to event #${upToSeq}`,
    rowHeight: ROW_HEIGHT,
    render: (at, element) => {
      const seq = rows[at] as number;
      if (onSurface.has(seq)) element.classList.add('on-surface');
      const by = model.shadowedBy.get(seq);
      if (by !== undefined && by <= upToSeq) element.classList.add('shadowed');
      rowText(
        element,
        model,
        seq,
        rowEvent(model, () => list, seq, wanted),
      );
      if (by !== undefined && by <= upToSeq) element.append(el('span', 'tag', `shadowed by #${by}`));
    },
    onSelect: (at) => {
      const seq = rows[at] as number;
      const by = model.shadowedBy.get(seq);
      showEvent(box, model, seq, by !== undefined && by <= upToSeq ? `shadowed by #${by}` : onSurface.has(seq) ? 'on this surface' : '');
    },
  });
  const bar = el('div', 'record-filter');
  const noise = document.createElement('input');
  noise.type = 'checkbox';
  noise.id = 'record-noise';
  noise.checked = recordFilter.showNoise;
  const noiseLabel = el('label', 'noise-label');
  const types = document.createElement('select');
  types.id = 'record-type';
  types.setAttribute('aria-label', 'show only events of this type');
  const present = model.typesUpTo(upToSeq);
  types.append(new Option('every type', ''));
  for (const type of present) types.append(new Option(type, type));
  types.value = present.includes(recordFilter.type) ? recordFilter.type : '';
  const search = document.createElement('input');
  search.type = 'search';
  search.id = 'record-search';
  search.placeholder = 'find in the record';
  search.setAttribute('aria-label', 'find text in the record, as shadowlog search finds it (case-insensitive)');
  search.title = 'finds what `shadowlog search` finds: messages, tool calls and their arguments, tool results, summaries, errors';
  search.value = recordFilter.query;
  const shown = el('span', 'muted record-count');
  shown.id = 'record-count';
  let matches: readonly number[] | undefined;
  let note = '';
  const apply = () => {
    const result = recordRows(model, upToSeq, matches);
    rows = result.rows;
    noiseLabel.replaceChildren(
      noise,
      document.createTextNode(
        recordFilter.showNoise ? ' source noise shown' : ` ${result.hiddenNoise.toLocaleString('en-US')} source-noise events hidden`,
      ),
    );
    noiseLabel.title = `lines of another harness's file kept whole (${[...model.noiseTypes].join(', ') || 'none in this session'}); show --record leaves them out too`;
    shown.textContent = `${rows.length.toLocaleString('en-US')} shown${note}`;
    list.setCount(rows.length);
  };
  // Each search answers the latest text only; one still on its way for an older text is dropped.
  let asked = 0;
  const find = () => {
    const text = recordFilter.query;
    const mine = ++asked;
    if (!isSearchText(text) || model.source === undefined) {
      matches = undefined;
      note = '';
      apply();
      return;
    }
    shown.textContent = 'searching…';
    model.source.search(text, upToSeq, model.eventCount).then(
      (result) => {
        if (mine !== asked) return;
        matches = result.seqs;
        note = result.truncated ? ' (the first 10,000 hits: narrow the text to see the rest)' : '';
        apply();
      },
      (error: unknown) => {
        if (mine !== asked) return;
        matches = [];
        note = ` (the search failed: ${failureOf(error)})`;
        apply();
      },
    );
  };
  let typing: ReturnType<typeof setTimeout> | undefined;
  noise.addEventListener('change', () => {
    recordFilter.showNoise = noise.checked;
    apply();
  });
  types.addEventListener('change', () => {
    recordFilter.type = types.value;
    apply();
  });
  search.addEventListener('input', () => {
    recordFilter.query = search.value;
    clearTimeout(typing);
    typing = setTimeout(find, 150);
  });
  bar.append(noiseLabel, types, search, shown);
  if (isSearchText(recordFilter.query)) {
    matches = [];
    apply();
    find();
  } else apply();
  return { list, bar };
}

/** A list of given events (a compaction's originals), with a detail box. */
export function eventList(id: string, label: string, model: SessionModel, seqs: readonly number[], box: HTMLElement): VirtualList {
  const wanted = new Set<number>();
  const list: VirtualList = new VirtualList({
    id,
    label,
    rowHeight: ROW_HEIGHT,
    render: (at, element) =>
      rowText(
        element,
        model,
        seqs[at] as number,
        rowEvent(model, () => list, seqs[at] as number, wanted),
      ),
    onSelect: (at) => showEvent(box, model, seqs[at] as number, 'original'),
  });
  list.setCount(seqs.length);
  return list;
}
