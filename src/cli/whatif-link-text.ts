// A what-if session's link to the call it asks again (session/start.whatif), in words: for
// `sessions` and the record's first line.

import type { WhatIfLink } from '../log/index.js';

/** `restore all`, `restore 4b7aadbf, 39`, `policy policy.json`: the question as the asker gave it. */
export function describeWhatIfQuestion(question: WhatIfLink['question']): string {
  const { restore, policy } = question as { restore?: unknown; policy?: { file?: unknown } };
  if (restore === 'all') return 'restore all';
  if (Array.isArray(restore)) return `restore ${restore.map(String).join(', ')}`;
  if (typeof policy?.file === 'string') return `policy ${policy.file}`;
  return 'a counterfactual surface';
}

/** "what-if of demo-1 turn 5 step 1 (#49): restore all" (", the recorded request sent again, sample 2" for a sample). */
export function describeWhatIfLink(link: WhatIfLink): string {
  const variant =
    link.variant === 'recorded'
      ? `, the recorded request sent again (sample ${link.sample})`
      : link.sample > 1
        ? `, sample ${link.sample}`
        : '';
  return `what-if of ${link.sessionId} turn ${link.turn} step ${link.step} (#${link.requestSeq}): ${describeWhatIfQuestion(link.question)}${variant}`;
}

/** The question as a phrase after "asked again with": "every replacement on its surface undone", "4b7aadbf undone", "the surface policy.json would have sent". */
export function whatIfQuestionPhrase(question: WhatIfLink['question']): string {
  const { restore, policy } = question as { restore?: unknown; policy?: { file?: unknown } };
  if (restore === 'all') return 'every compaction and prune on its surface undone';
  if (Array.isArray(restore)) return `${restore.map(String).join(', ')} undone`;
  if (typeof policy?.file === 'string') return `the surface the policy in ${policy.file} would have sent`;
  return 'a counterfactual surface';
}
