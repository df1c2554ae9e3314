// The typed errors of what-if calls (SPEC §15). Each is raised before anything is sent or
// written: a what-if that cannot be asked as given changes nothing.

import { ShadowlogError } from '../log/errors.js';

/** A --restore target (a compaction id, or the seq of a replacement) that is not on the call's surface. */
export class RestoreTargetError extends ShadowlogError {
  readonly target: string;
  constructor(target: string, message: string) {
    super('WHATIF_RESTORE_TARGET', message);
    this.target = target;
  }
}

/** A counterfactual request over the model's window: refused before it is sent, with the numbers. */
export class WhatIfWindowError extends ShadowlogError {
  readonly inputTokens: number;
  readonly reservedTokens: number;
  readonly window: number;
  constructor(inputTokens: number, reservedTokens: number, window: number, message: string) {
    super('WHATIF_OVER_WINDOW', message);
    this.inputTokens = inputTokens;
    this.reservedTokens = reservedTokens;
    this.window = window;
  }
}

/** A call budget that allows nothing, or a what-if that needs more calls than the budget allows. */
export class WhatIfBudgetError extends ShadowlogError {
  readonly budget: number;
  constructor(budget: number, message: string) {
    super('WHATIF_BUDGET', message);
    this.budget = budget;
  }
}

/** A what-if that cannot be asked of this call or this session (no calls after the compaction, a call off the surface). */
export class WhatIfInputError extends ShadowlogError {
  constructor(message: string) {
    super('WHATIF_INPUT', message);
  }
}

/** No adapter can send to the provider a what-if would ask (the recorded one, or the one named). */
export class WhatIfProviderError extends ShadowlogError {
  readonly provider: string;
  constructor(provider: string, message: string) {
    super('WHATIF_NO_ADAPTER', message);
    this.provider = provider;
  }
}
