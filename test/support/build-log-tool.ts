// A tool for scripted sessions that must outgrow their window: each call returns a build log
// of about 3,700 characters.

import { z } from 'zod';
import { defineTool } from '../../src/spine/tool.js';

export const readLogTool = defineTool({
  name: 'read_log',
  description: 'Read a build log',
  input: z.object({ part: z.number() }),
  execute: ({ part }) =>
    `build log part ${part}\n${Array.from({ length: 60 }, (_, line) => `step ${line}: compiled src/module${part}_${line}.ts in ${line * 3} ms`).join('\n')}`,
});

/** The part number a user message asks for ("Read part 3 …"), or 0. */
export function requestedPart(text: string): number {
  return Number(/part (\d+)/.exec(text)?.[1] ?? 0);
}
