// The demo's scripted agent goes on with the open request when the turn's own user message was
// compacted away: it reads that request from the summary's sections.

import { describe, expect, it } from 'vitest';
import { demoAgentReply } from '../../src/cli/demo/demo-agent.js';
import { renderSections, replacementText } from '../../src/compaction/render-summary.js';
import { emptySections } from '../../src/compaction/summary-sections.js';

describe('the demo agent after its request was compacted', () => {
  it('takes up the summary’s open request', () => {
    const sections = {
      ...emptySections(),
      requests: [
        { status: 'done' as const, text: 'Give me a short overview of this project.' },
        { status: 'open' as const, text: 'Which city ordered the most items?' },
      ],
    };
    const summary = replacementText(renderSections(sections), 9);
    const reply = demoAgentReply({ index: 0, body: {}, messages: [{ role: 'user', content: [{ type: 'text', text: summary }] }] });
    expect(reply.toolCalls).toEqual([{ name: 'read_file', arguments: { path: 'data/orders.csv' } }]);
  });
});
