// Which nodes the model has been sent (compaction/sent-nodes.ts): a proxied call off the surface
// (its messages could not be written as a change of it, proxy.unmatched) sent a body of its own,
// so it proves nothing about the surface nodes before it; a call on the surface does.

import { describe, expect, it } from 'vitest';
import { sentNodes } from '../../src/compaction/sent-nodes.js';
import type { EventDraft } from '../../src/log/event.js';
import { MemoryLogStore } from '../../src/store/memory/memory-store.js';
import { SessionLog } from '../../src/store/session-log.js';

const text = (value: string) => [{ type: 'text' as const, text: value }];

function proxiedRequest(surfaceSeqs: number[], unmatched?: string): EventDraft {
  return {
    type: 'model/request',
    data: {
      turn: 1,
      step: 1,
      provider: 'openai',
      model: 'gpt-4o',
      provenance: 'proxied',
      requestDigest: 'b'.repeat(64),
      requestBody: { encoding: 'utf-8', text: '{"model":"gpt-4o"}' },
      surfaceSeqs,
      proxy: { protocol: 'openai-chat', path: '/v1/chat/completions', ...(unmatched === undefined ? {} : { unmatched }) },
    },
  };
}

describe('sentNodes', () => {
  it('takes a proxied request off the surface for no send, and one on it for a send', async () => {
    const log = await SessionLog.create(new MemoryLogStore(), 's');
    await log.append([
      { type: 'system/message', data: { content: text('be brief') }, surfaceOp: 'append' },
      { type: 'user/message', data: { content: text('hello') }, surfaceOp: 'append' },
      proxiedRequest([1, 2], "the request's messages cannot be written as a change of the session's surface"),
    ]);
    expect((await sentNodes(log, 1))(2)).toBe(false);
    await log.append([proxiedRequest([1, 2])]);
    expect((await sentNodes(log, 1))(2)).toBe(true);
  });
});
