// A what-if request that would not fit the model's window is refused before it is sent (SPEC
// §15), with the numbers, and the choices that would make it fit: the model's real window, fewer
// replacements undone (what each adds), or fewer tokens reserved for the answer.

import { isSurfaceType, type SurfaceType } from '../log/event.js';
import { SurfaceMeter } from '../meter/measure.js';
import { scriptAwareEstimator } from '../meter/script-aware.js';
import type { AuditedCall, AuditedSession } from './audited-session.js';
import { describeReplacement, type Replacement } from './restore-surface.js';
import type { BuiltRequest } from './what-if-request.js';
import { WhatIfWindowError } from './whatif-errors.js';

const number = (value: number) => value.toLocaleString('en-US');

/** Throws WhatIfWindowError when `request` and its reserve exceed the window; `restored` are the replacements it undid, `recordedTokens` the recorded surface's input. */
export function windowRefusal(
  audit: AuditedSession,
  call: AuditedCall,
  request: BuiltRequest,
  target: { readonly model: { readonly provider: string; readonly modelId: string }; readonly window: number },
  restored: readonly Replacement[],
  recordedTokens: number,
): void {
  const needed = request.inputTokens + request.reservedTokens;
  if (needed <= target.window) return;
  const name = `${target.model.provider}/${target.model.modelId}`;
  const choices = [`give the model's real window with --window ${needed} or more, if it takes that many`];
  const free = target.window - request.reservedTokens - recordedTokens;
  if (restored.length > 0) {
    const additions = topLevel(call, restored).map((replacement) => ({ replacement, tokens: addedTokens(audit, replacement, restored) }));
    const listed = additions.map(({ replacement, tokens }) => `${describeReplacement(replacement)} adds ~${number(tokens)}`).join(', ');
    const fitting = additions
      .filter(({ tokens }) => tokens <= free)
      .map(({ replacement }) => replacement.compactionId ?? String(replacement.seq));
    choices.push(
      free <= 0
        ? `restore less (though even the recorded surface, ~${number(recordedTokens)} tokens, leaves no room in this window): ${listed}`
        : `restore less: the recorded surface is ~${number(recordedTokens)} tokens and ~${number(free)} more fit; ${listed}${fitting.length === 0 ? '' : ` (each of these fits alone: --restore ${fitting.join(' ')})`}`,
    );
  }
  choices.push(`reserve fewer tokens for the answer than ${number(request.reservedTokens)} (--max-output-tokens)`);
  throw new WhatIfWindowError(
    request.inputTokens,
    request.reservedTokens,
    target.window,
    `the what-if request of turn ${call.turn} step ${call.step} would not fit the window, so nothing was sent: ~${number(request.inputTokens)} input tokens (messages and tool definitions, by the script-aware estimate) + ${number(request.reservedTokens)} reserved for the answer = ${number(needed)}, ${number(needed - target.window)} over the ${number(target.window)}-token window of ${name}. To make it fit: ${choices.join('; or ')}`,
  );
}

/** The restored replacements whose nodes stand on the call's surface. */
function topLevel(call: AuditedCall, restored: readonly Replacement[]): Replacement[] {
  const onSurface = new Set<number>(call.nodes.map((node) => node.seq));
  return restored.filter((replacement) => onSurface.has(replacement.seq));
}

/** The tokens undoing `replacement` (and the restored replacements inside it) adds to the surface. */
function addedTokens(audit: AuditedSession, replacement: Replacement, restored: readonly Replacement[]): number {
  const meter = new SurfaceMeter(scriptAwareEstimator);
  const undone = new Map(restored.map((item) => [item.seq, item]));
  const price = (seq: number): number => {
    const event = audit.events.get(seq);
    return event === undefined || !isSurfaceType(event.type) ? 0 : meter.priceOfData(event.type as SurfaceType, event.data);
  };
  const expanded = (item: Replacement): number =>
    item.shadowed.reduce((sum, seq) => {
      const inner = undone.get(seq);
      return sum + (inner === undefined ? price(seq) : expanded(inner));
    }, 0);
  return expanded(replacement) - price(replacement.seq);
}
