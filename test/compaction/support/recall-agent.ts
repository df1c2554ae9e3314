// The scripted agent the recall tool's tests drive: a read_file tool whose file N hides
// `secretN = value-(N*11)` on line 20 among filler, and an agent that reads files and makes the
// recall calls its prompt lists.

import { z } from 'zod';
import type { ScriptedCall, ScriptedReply } from '../../../src/providers/scripted-model.js';
import { defineTool } from '../../../src/spine/tool.js';

export const readFile = defineTool({
  name: 'read_file',
  description: 'Read file N',
  input: z.object({ file: z.number() }),
  execute: ({ file }) =>
    Array.from({ length: 40 }, (_, line) =>
      line === 20 ? `secret${file} = value-${file * 11}` : `file ${file} line ${line}: filler text`,
    ).join('\n'),
});

/** "read N" reads file N; "recall [calls]" makes those recall calls, one per step; then it answers. */
export function agent(call: ScriptedCall): ScriptedReply {
  const lastUser = call.messages.findLastIndex((message) => message.role === 'user');
  const prompt = call.messages[lastUser]?.content.map((block) => (block.type === 'text' ? block.text : '')).join('') ?? '';
  const done = call.messages.slice(lastUser + 1).filter((message) => message.role === 'tool').length;
  const read = /^read (\d+)$/.exec(prompt);
  if (read !== null) return done === 0 ? { toolCalls: [{ name: 'read_file', arguments: { file: Number(read[1]) } }] } : { text: 'Read.' };
  if (prompt.startsWith('recall ')) {
    const calls = JSON.parse(prompt.slice('recall '.length)) as object[];
    const next = calls[done];
    return next === undefined ? { text: 'Recalled.' } : { toolCalls: [{ name: 'recall', arguments: next as never }] };
  }
  return { text: 'Nothing to do.' };
}
