// The page's form of the view's data: each call as a compact row (the figures the timeline, the
// header and the chart draw), its details left to be loaded by block when a call is opened.

import { type CallSummary, encodeCallRow } from './client/page-blocks.js';
import type { CallView, PageDelta, PageDocument, ViewDelta, ViewDocument } from './view-data.js';

export function callSummaryOf(call: CallView): CallSummary {
  return {
    seq: call.seq,
    turn: call.turn,
    step: call.step,
    provider: call.provider,
    model: call.model,
    status: call.check.status,
    offSurface: call.offSurface !== undefined,
    answered: call.answerSeq !== undefined,
    unrecordedAnswer: call.unrecordedAnswer !== undefined,
    metered: call.metered !== undefined,
    anchored: call.metered?.anchored === true,
    inputTokens: call.usage?.inputTokens ?? null,
    outputTokens: call.usage?.outputTokens ?? null,
    cacheReadTokens: call.usage?.cacheReadTokens ?? null,
    cacheWriteTokens: call.usage?.cacheWriteTokens ?? null,
    estimate: call.metered?.estimatedTokens ?? call.estimatedTokens,
    contextWindow: call.contextWindow,
    errorCode: call.error?.code ?? null,
  };
}

export function pageDeltaOf(delta: ViewDelta): PageDelta {
  return { ...delta, calls: delta.calls.map((call) => encodeCallRow(callSummaryOf(call))) };
}

export function pageDocumentOf(viewDocument: ViewDocument): PageDocument {
  return { ...viewDocument, session: pageDeltaOf(viewDocument.session) };
}
