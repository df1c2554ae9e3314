// What the harness keeps from every event of a session: the capabilities' per-session state
// (compaction's locks, anchors and policy), the tool-call ids used, and the turn numbering. Its
// state is saved in fold checkpoints (SessionLog's `observer`), so that reopening a session
// reads the newest checkpoint and the events after it, not the whole log; restored, it equals
// what observing every event would have built. When a capability observes without saving its
// state, there is nothing to save it with: the harness observes the whole log instead.

import { FoldStateError, messageOf, ShadowlogError } from '../log/errors.js';
import type { LogEvent } from '../log/event.js';
import type { JsonValue } from '../log/json-value.js';
import type { CheckpointedObserver } from '../store/session-log.js';
import type { Capability } from './capability.js';
import { ToolCallIds } from './tool-call-ids.js';

/** The layout of the harness's own part of the saved state. */
const HARNESS_STATE_VERSION = 1;

export class SessionObserver {
  readonly callIds = new ToolCallIds();
  /** The highest turn number of a turn/start so far. */
  lastTurn = 0;
  /** The turn a turn/start opened and no turn/end closed yet. */
  openTurn: number | undefined;
  private readonly observing: readonly Capability[];

  constructor(
    private readonly sessionId: string,
    capabilities: readonly Capability[],
    /** Called after the harness's own bookkeeping, with each event (onEvent). */
    private readonly onEvent: (event: LogEvent) => void,
  ) {
    this.observing = capabilities.filter((capability) => capability.observe !== undefined);
  }

  observe(event: LogEvent): void {
    for (const capability of this.observing) capability.observe?.(this.sessionId, event);
    this.callIds.observe(event);
    if (event.type === 'turn/start') this.openTurn = this.lastTurn = Math.max(this.lastTurn, event.data.turn as number);
    if (event.type === 'turn/end') this.openTurn = undefined;
    this.onEvent(event);
  }

  /** The observer to give SessionLog: checkpointed when every observing capability saves its state. */
  forLog(): { observer: CheckpointedObserver } | { observe: (event: LogEvent) => void } {
    const observe = (event: LogEvent) => this.observe(event);
    const saved: { capability: Capability; state: NonNullable<Capability['observedState']> }[] = [];
    for (const capability of this.observing) {
      if (capability.observedState === undefined) return { observe };
      saved.push({ capability, state: capability.observedState });
    }
    const key = [`harness ${HARNESS_STATE_VERSION}`, ...saved.map(({ capability, state }) => `${capability.name} ${state.version}`)].join(
      '; ',
    );
    return {
      observer: {
        key,
        observe,
        save: () => ({
          lastTurn: this.lastTurn,
          openTurn: this.openTurn ?? null,
          callIds: this.callIds.save(),
          capabilities: saved.map(({ state }) => state.save(this.sessionId)),
        }),
        restore: (value) => this.restore(value, saved),
      },
    };
  }

  private restore(value: JsonValue, saved: readonly { state: NonNullable<Capability['observedState']> }[]): void {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new FoldStateError('the harness state is not an object');
    const { lastTurn, openTurn, callIds, capabilities } = value;
    if (!isTurn(lastTurn) || !(openTurn === null || isTurn(openTurn))) throw new FoldStateError('the harness state has no turn numbers');
    if (!Array.isArray(capabilities) || capabilities.length !== saved.length)
      throw new FoldStateError(
        `the harness state holds ${Array.isArray(capabilities) ? capabilities.length : 'no'} capability states, expected ${saved.length}`,
      );
    const ids = ToolCallIds.restore(callIds);
    try {
      for (const [index, { state }] of saved.entries()) state.restore(this.sessionId, capabilities[index] as JsonValue);
    } catch (error) {
      // What the ones before took is dropped: the log is then observed from a fresh state.
      for (const capability of this.observing) capability.release?.(this.sessionId);
      if (ShadowlogError.isInstance(error)) throw error;
      throw new FoldStateError(`a capability refused its saved state: ${messageOf(error)}`);
    }
    this.callIds.replaceWith(ids);
    this.lastTurn = lastTurn;
    this.openTurn = openTurn ?? undefined;
  }
}

function isTurn(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}
