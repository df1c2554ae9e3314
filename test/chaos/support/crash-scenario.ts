// The scripted agent the crash-injection suite kills: a build-log reader with compaction and
// the tool-result pruner mounted on a small window, so that it compacts every few turns. The
// child process and the parent that reopens its sessions build it the same way.

import { createCompaction } from '../../../src/compaction/compaction-capability.js';
import { createExtractiveSummarizer, type Summarizer } from '../../../src/compaction/summarizer.js';
import { createToolResultPruner } from '../../../src/compaction/tool-result-pruner.js';
import { createEstimator } from '../../../src/meter/index.js';
import { type ScriptedCall, ScriptedModel, type ScriptedReply } from '../../../src/providers/scripted-model.js';
import { createHarness } from '../../../src/spine/harness.js';
import type { LogStore } from '../../../src/store/log-store.js';
import { openPostgresStore } from '../../../src/store/postgres/index.js';
import { openSqliteStore } from '../../../src/store/sqlite/index.js';
import { readLogTool, requestedPart } from '../../support/build-log-tool.js';

export const WINDOW = { contextWindow: 3000, defaultMaxOutputTokens: 500 };
const CONFIG = { headroomTokens: 0, summarizer: { kind: 'extractive' as const } };
/** Turns the child runs; a handful, so that hundreds of kill points stay quick. */
export const CHILD_TURNS = 7;

/** Each turn: read one log part, then answer about it. */
function agent(call: ScriptedCall): ScriptedReply {
  const last = call.messages[call.messages.length - 1];
  if (last?.role === 'user') {
    const part = requestedPart(last.content.map((block) => (block.type === 'text' ? block.text : '')).join(''));
    // An explicit call id: the scripted model's default (call-<n>-<m>) restarts with every
    // model instance, and the parent continues the child's session with a new one.
    return { toolCalls: [{ name: 'read_log', arguments: { part }, callId: `read-part-${part}` }] };
  }
  return { text: `Part read: every module compiled; the slowest step took 177 ms. ${'Details follow. '.repeat(120)}` };
}

export function scriptedModel(): ScriptedModel {
  return new ScriptedModel({ replies: agent, limits: WINDOW });
}

/** The harness of the scenario over `store`; `wrapSummarizer` lets the child die inside step 4. */
export function buildScenario(store: LogStore, wrapSummarizer?: (inner: Summarizer) => Summarizer) {
  const pruner = createToolResultPruner({ thresholdChars: 2_000, headChars: 600, tailChars: 300 });
  // The configured extractive summarizer, built the way the capability builds it, so that
  // the child (wrapped) and the parent (plain) write the same summaries.
  const inner: Summarizer = {
    summarize: async (request) => {
      const estimator = await createEstimator(compaction.policy.estimator);
      return createExtractiveSummarizer((text) => estimator.countText(text)).summarize(request);
    },
  };
  const summarizer = wrapSummarizer === undefined ? inner : wrapSummarizer(inner);
  const compaction = createCompaction({ config: CONFIG, pruner, summarizer });
  const model = scriptedModel();
  const harness = createHarness({ store, model, tools: [readLogTool], systemPrompt: 'You read build logs.', capabilities: [compaction] });
  return { harness, compaction, model };
}

export function turnPrompt(turn: number): string {
  return `Read part ${turn} of the build log.`;
}

/** `sqlite:PATH`, or a postgres URL (with `?schema=`). */
export function openStoreSpec(spec: string): Promise<LogStore> {
  if (spec.startsWith('sqlite:')) return openSqliteStore(spec.slice('sqlite:'.length));
  return openPostgresStore(spec);
}
