// The meter's anchor for a session: the latest call that reported its input, if it was made by
// the mounted model (another model's count says nothing of this one's tokenizer), and that
// model's first such call in the session.

import type { MeterAnchor } from '../meter/measure.js';
import type { LanguageModel } from '../providers/language-model.js';
import { anchorKey, type CompactionSessionState } from './session-state.js';

export function meterAnchorOf(state: CompactionSessionState, model: LanguageModel): MeterAnchor | undefined {
  const anchor = state.anchor;
  if (anchor === undefined || anchor.provider !== model.provider || anchor.model !== model.modelId) return undefined;
  const first = state.firstAnchors.get(anchorKey(anchor.provider, anchor.model));
  return {
    inputTokens: anchor.inputTokens,
    surfaceSeqs: anchor.surfaceSeqs,
    ...(first === undefined ? {} : { first }),
    shadowedPrice: (seq: number) => state.shadowedPrice(seq),
  };
}
