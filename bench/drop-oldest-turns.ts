// The drop-oldest policy on a live session: before each step, the oldest whole turns that
// newestWholeTurns says do not fit are shadowed by one short marker, so that the request is
// what that harness sends (plus the marker's few tokens) and the log records what was left out.
// No summary, no model call; originals stay in the log like every shadowed event.

import { newestWholeTurns, type PolicyWindow } from '../src/compaction/peer-policies.js';
import type { EventDraft } from '../src/log/event.js';
import type { SurfaceNode } from '../src/log/surface-fold.js';
import { SurfaceMeter } from '../src/meter/measure.js';
import { scriptAwareEstimator } from '../src/meter/script-aware.js';
import type { Capability, StepContext } from '../src/spine/capability.js';

/** The marker standing for the dropped turns. */
export function dropMarker(messages: number): string {
  return `[${messages} earlier messages were left out to fit the context window]`;
}

export class DropOldestTurns implements Capability {
  readonly name = 'bench-drop-oldest';
  /** Times turns were dropped. */
  drops = 0;
  /** Original messages left out so far. */
  private droppedMessages = 0;
  private readonly meter = new SurfaceMeter(scriptAwareEstimator);
  /** The marker at its longest, priced once: what the decision reserves for it. */
  private readonly markerTokens = this.meter.priceOfText('user/message', dropMarker(Number.MAX_SAFE_INTEGER));

  /**
   * @param window the window and the reserve every request carries
   * @param fixedTokens what every request carries besides its messages (the tool definitions)
   */
  constructor(
    private readonly window: PolicyWindow,
    private readonly fixedTokens: number,
  ) {}

  async beforeStep(context: StepContext): Promise<void> {
    const nodes = context.log.fold.toArray();
    const prices = nodes.map((node) => this.meter.priceOf(node));
    const budget = this.window.contextWindow - this.window.reserve - this.fixedTokens;
    const first = newestWholeTurns(nodes, prices, budget, this.markerTokens);
    if (first === undefined) return;
    const head = nodes[0]?.type === 'system/message' ? 1 : 0;
    const shadowed: SurfaceNode[] = nodes.slice(head, first);
    // A marker from an earlier drop stands for messages already counted.
    this.droppedMessages += shadowed.filter((node) => node.event.surfaceOp === 'append').length;
    const draft: EventDraft = {
      type: 'user/message',
      data: { content: [{ type: 'text', text: dropMarker(this.droppedMessages) }] },
      surfaceOp: { op: 'replace', startSeq: (shadowed[0] as SurfaceNode).seq, endSeq: (shadowed.at(-1) as SurfaceNode).seq },
      sourceEventSeqs: shadowed.map((node) => node.seq),
    };
    await context.log.append([draft]);
    for (const node of shadowed) this.meter.forget(node.seq);
    this.drops++;
  }
}
