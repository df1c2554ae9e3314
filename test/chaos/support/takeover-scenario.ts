// The agent of the lost-ownership suite: every turn the model calls `look` once, then answers.
// The parent runs it as the first owner, whose `look` can sabotage its own lock connection;
// the child process that takes the session over runs it too.

import { z } from 'zod';
import { ScriptedModel } from '../../../src/providers/scripted-model.js';
import { createHarness, type Harness } from '../../../src/spine/harness.js';
import { defineTool } from '../../../src/spine/tool.js';
import type { LogStore } from '../../../src/store/log-store.js';

/** The harness over `store`; `onLook` runs inside each call of the tool, before it answers. */
export function buildTakeoverAgent(store: LogStore, onLook: () => Promise<void> = async () => {}): Harness {
  const look = defineTool({
    name: 'look',
    description: 'Look around',
    input: z.object({}),
    execute: async () => {
      await onLook();
      return 'nothing new';
    },
  });
  const model = new ScriptedModel({
    replies: (call) => {
      const turn = call.messages.filter((message) => message.role === 'user').length;
      // One call id per turn, unique across the lifecycles of the session.
      if (call.messages.at(-1)?.role === 'user') return { toolCalls: [{ name: 'look', arguments: {}, callId: `look-${turn}` }] };
      return { text: `Looked around on turn ${turn}.` };
    },
  });
  return createHarness({ store, model, tools: [look], systemPrompt: 'You look around.' });
}
