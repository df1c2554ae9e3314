// A what-if session's link to the call it asks again (session/start.whatif), in words: for
// `sessions` and the record's first line.

import type { WhatIfLink } from '../log/index.js';

/** `restore all`, `restore 4b7aadbf, 39`, `policy policy.json`: the question as the asker gave it. */
export function describeWhatIfQuestion(question: WhatIfLink['question']): string {
  const probed = probeQuestion(question);
  if (probed !== undefined) return probed;
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
  const probed = probeQuestion(question);
  if (probed !== undefined) return probed;
  const { restore, policy } = question as { restore?: unknown; policy?: { file?: unknown } };
  if (restore === 'all') return 'every compaction and prune on its surface undone';
  if (Array.isArray(restore)) return `${restore.map(String).join(', ')} undone`;
  if (typeof policy?.file === 'string') return `the surface the policy in ${policy.file} would have sent`;
  return 'a counterfactual surface';
}

/** A `tune --probe` session's question: `probe (recall) of policy claude-code`, `judge of probe demo.probe-40-1`; undefined for any other. */
function probeQuestion(question: WhatIfLink['question']): string | undefined {
  const { probe, judge } = question as { probe?: { policy?: unknown; kind?: unknown }; judge?: { probe?: unknown } };
  if (typeof probe === 'object' && probe !== null)
    return `tune probe (${String(probe.kind)}) with the surface of policy ${String(probe.policy)}`;
  if (typeof judge === 'object' && judge !== null) return `tune probe's judge, of ${String(judge.probe)}`;
  return undefined;
}
