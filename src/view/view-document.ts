// Reads a session from a store into the page's first document, in one read: every event through
// the ViewBuilder (each call's surface rebuilt and its digest checked where it stands, and
// priced by the calibrated meter `stats --calls` uses), what the window and the meter's settings
// are worked out from kept on the way, and, for a written page, the events packed in blocks.

import { COMPACTION_POLICY } from '../compaction/event-types.js';
import { createSessionCallMeter, type SessionMeterSettings, sessionMeterSettings } from '../compaction/session-call-meter.js';
import { type SessionWindow as RunWindow, readSessionWindow } from '../compaction/session-window.js';
import { SessionNotFoundError } from '../log/errors.js';
import type { LogEvent } from '../log/event.js';
import type { EventTypeRegistry } from '../log/event-types.js';
import { isForeignType } from '../log/foreign-event.js';
import { assertSessionId } from '../log/session-id.js';
import type { CallMeter } from '../meter/call-meter.js';
import type { RendererResolver } from '../spine/replay.js';
import type { LogStore } from '../store/log-store.js';
import { sessionWindowOf } from './session-window.js';
import { ViewBuilder } from './view-builder.js';
import { ContentPacker, type ViewContent } from './view-content.js';
import type { CallPricer, CallView, ViewDocument } from './view-data.js';

export interface ViewDocumentOptions {
  readonly resolveRenderer: RendererResolver;
  readonly registry?: EventTypeRegistry;
  /** Served with a follow stream (default false: a self-contained file). */
  readonly live?: boolean;
  /** A tune report, already checked (parseTuneReport). */
  readonly tune?: unknown;
  /**
   * Check the hash chain and every call now, and meter the calls (default true); false draws the
   * page from the events as stored, its checks and the meter's estimates left to the follow stream.
   */
  readonly checkCalls?: boolean;
  /** Prices each call from its reported usage; `prices` names the table. */
  readonly priceCall?: CallPricer;
  readonly prices?: { readonly date: string; readonly source: string };
  /** Pack the events' content for a written page (viewDocument.content). */
  readonly packContent?: boolean;
}

/** The first document, the content of a written page, and what the follow stream's meter needs. */
export interface BuiltViewDocument extends ViewDocument {
  readonly content?: ViewContent;
  /** The meter's settings, from every policy the session recorded. */
  readonly meterSettings: SessionMeterSettings;
}

/** What the window and the meter's settings are worked out from, kept as the session is read. */
class SessionFacts {
  readonly policies: LogEvent[] = [];
  /** What readSessionWindow keeps: the requests, the summaries, the first foreign line. */
  readonly windowEvents: LogEvent[] = [];
  private foreign = false;
  calls = 0;

  observe(event: LogEvent): void {
    if (event.type === COMPACTION_POLICY) this.policies.push(event);
    if (event.type === 'model/request') this.calls++;
    if (event.type === 'model/request' || event.type === 'compaction/summary') this.windowEvents.push(event);
    else if (!this.foreign && isForeignType(event.type)) {
      this.foreign = true;
      this.windowEvents.push(event);
    }
  }

  window(sessionId: string): Promise<RunWindow> {
    const events = this.windowEvents;
    return readSessionWindow(
      {
        async *read() {
          yield events;
        },
      },
      sessionId,
    );
  }
}

/**
 * The meter, fed as the session is read, with the settings of the policies read so far. The
 * settings are the whole session's: a policy met after a call of its model, or naming another
 * estimator, changes them for what was metered before it, and the calls are metered again in a
 * second read (rare: a session's policy stands before its calls).
 */
async function speculativeMeter(): Promise<{ meter: CallMeter; settings: SessionMeterSettings; factors: Map<string, number> }> {
  const settings = sessionMeterSettings([]);
  const factors = new Map<string, number>();
  return { meter: await createSessionCallMeter({ estimator: settings.estimator, factors }), settings, factors };
}

function sameSettings(a: SessionMeterSettings, b: SessionMeterSettings): boolean {
  if (a.estimator !== b.estimator || a.factors.size !== b.factors.size) return false;
  for (const [key, factor] of a.factors) if (b.factors.get(key) !== factor) return false;
  return true;
}

export async function buildViewDocument(store: LogStore, sessionId: string, options: ViewDocumentOptions): Promise<BuiltViewDocument> {
  assertSessionId(sessionId);
  if ((await store.head(sessionId)) === undefined) throw new SessionNotFoundError(sessionId);
  const checking = options.checkCalls !== false;
  const speculation = checking ? await speculativeMeter() : undefined;
  const builderOptions = {
    sessionId,
    ...(options.priceCall === undefined ? {} : { priceCall: options.priceCall }),
    resolveRenderer: options.resolveRenderer,
    ...(checking ? {} : { checkCalls: false, checkChain: false }),
    ...(options.registry === undefined ? {} : { registry: options.registry }),
  };
  let builder = new ViewBuilder({ ...builderOptions, ...(speculation === undefined ? {} : { callMeter: speculation.meter }) });
  const facts = new SessionFacts();
  const packer = options.packContent === true ? new ContentPacker() : undefined;
  // Set when a policy changed the meter's settings after it had metered a call with them.
  let remeter = false;
  for await (const page of store.read(sessionId)) {
    for (const event of page) {
      facts.observe(event);
      if (speculation !== undefined && event.type === COMPACTION_POLICY) {
        const now = sessionMeterSettings(facts.policies);
        const metered = { estimator: speculation.settings.estimator, factors: speculation.factors };
        if (now.estimator !== metered.estimator || (facts.calls > 0 && !sameSettings(now, metered))) remeter = true;
        speculation.factors.clear();
        for (const [key, factor] of now.factors) speculation.factors.set(key, factor);
      }
      builder.apply(event);
      packer?.add(event);
    }
    await packer?.ready();
  }
  const meterSettings = sessionMeterSettings(facts.policies);
  if (remeter) {
    // The second read: the same pass with the whole session's settings from the start.
    builder = new ViewBuilder({ ...builderOptions, callMeter: await createSessionCallMeter(meterSettings) });
    for await (const page of store.read(sessionId)) for (const event of page) builder.apply(event);
  }
  const taken = builder.take();
  // Each call is drawn against the window its model ran in, by the library's rule (what the record
  // states, the harness's own compactions, the client's default), not an importer's table entry.
  const run = await facts.window(sessionId);
  const calls: CallView[] = taken.calls.map((call) => ({
    ...call,
    contextWindow: run.models.get(call.model)?.window ?? call.contextWindow,
  }));
  const session = { ...taken, calls };
  const link = await store.readForkLink?.(sessionId);
  const children = (await store.listSessions())
    .flatMap((stored) => (stored.parent?.sessionId === sessionId ? [{ sessionId: stored.id, forkSeq: stored.parent.forkSeq }] : []))
    .sort((a, b) => a.forkSeq - b.forkSeq || a.sessionId.localeCompare(b.sessionId));
  return {
    kind: 'shadowlog-view',
    version: 2,
    generatedAt: new Date().toISOString(),
    live: options.live === true,
    session,
    meter: { estimator: meterSettings.estimator, calibrated: true },
    prices: options.prices ?? null,
    window: sessionWindowOf(session.calls, session.policies, run),
    tune: options.tune ?? null,
    branches: { parent: link === undefined ? null : { sessionId: link.parentSessionId, forkSeq: link.forkSeq }, children },
    meterSettings,
    ...(packer === undefined ? {} : { content: await packer.finish() }),
  };
}
