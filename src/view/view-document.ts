// Reads a session from a store into the page's first document: every event, through the
// ViewBuilder (each call's surface rebuilt and its digest checked where it stands, and priced
// by the calibrated meter `stats --calls` uses).

import { createSessionCallMeter, readSessionMeterSettings } from '../compaction/session-call-meter.js';
import { readSessionWindow } from '../compaction/session-window.js';
import { SessionNotFoundError } from '../log/errors.js';
import type { EventTypeRegistry } from '../log/event-types.js';
import { assertSessionId } from '../log/session-id.js';
import type { RendererResolver } from '../spine/replay.js';
import type { LogStore } from '../store/log-store.js';
import { sessionWindowOf } from './session-window.js';
import { ViewBuilder } from './view-builder.js';
import type { CallPricer, ViewDocument } from './view-data.js';

export interface ViewDocumentOptions {
  readonly resolveRenderer: RendererResolver;
  readonly registry?: EventTypeRegistry;
  /** Served with a follow stream (default false: a self-contained file). */
  readonly live?: boolean;
  /** A tune report, already checked (parseTuneReport). */
  readonly tune?: unknown;
  /** Check every call now (default true); false leaves them pending for the follow stream. */
  readonly checkCalls?: boolean;
  /** Prices each call from its reported usage; `prices` names the table. */
  readonly priceCall?: CallPricer;
  readonly prices?: { readonly date: string; readonly source: string };
}

export async function buildViewDocument(store: LogStore, sessionId: string, options: ViewDocumentOptions): Promise<ViewDocument> {
  assertSessionId(sessionId);
  if ((await store.head(sessionId)) === undefined) throw new SessionNotFoundError(sessionId);
  // The meter `stats --calls` uses: the estimator and factors the session's policies name.
  const settings = await readSessionMeterSettings(store, sessionId);
  const builder = new ViewBuilder({
    sessionId,
    callMeter: await createSessionCallMeter(settings),
    ...(options.priceCall === undefined ? {} : { priceCall: options.priceCall }),
    resolveRenderer: options.resolveRenderer,
    ...(options.checkCalls === false ? { checkCalls: false } : {}),
    ...(options.registry === undefined ? {} : { registry: options.registry }),
  });
  for await (const page of store.read(sessionId)) for (const event of page) builder.apply(event);
  const taken = builder.take();
  // Each call is drawn against the window its model ran in, by the library's rule (what the record
  // states, the harness's own compactions, the client's default), not an importer's table entry.
  const run = await readSessionWindow(store, sessionId);
  const session = {
    ...taken,
    calls: taken.calls.map((call) => ({ ...call, contextWindow: run.models.get(call.model)?.window ?? call.contextWindow })),
  };
  return {
    kind: 'shadowlog-view',
    version: 1,
    generatedAt: new Date().toISOString(),
    live: options.live === true,
    session,
    meter: { estimator: settings.estimator, calibrated: true },
    prices: options.prices ?? null,
    window: sessionWindowOf(session.calls, session.policies, run),
    tune: options.tune ?? null,
  };
}
