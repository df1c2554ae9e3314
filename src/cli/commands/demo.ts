// `shadowlog demo`: an offline agent session on the bundled sample project. The model is a
// deterministic script (no language model is involved); the tools, the log, the store and
// replay are the real ones.

import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { AssistantMessageData, ContentBlock, LogEvent, ModelRequestData, ToolResultData } from '../../log/event.js';
import { ScriptedModel } from '../../providers/scripted-model.js';
import { createHarness, newSessionId } from '../../spine/harness.js';
import { replay } from '../../spine/replay.js';
import { createFileTools } from '../../spine/tools/file-tools.js';
import type { CommandContext } from '../context.js';
import { DEMO_TASKS, demoAgentReply } from '../demo/demo-agent.js';
import { rendererFor } from '../renderers.js';
import { UsageError } from '../usage-error.js';
import { describeReplay } from './replay.js';
import { showCommand } from './show.js';

export const SAMPLE_PROJECT = fileURLToPath(new URL('../../../examples/sample-project/', import.meta.url));
const SYSTEM_PROMPT = 'You are a coding agent. Use the file tools to look at the project in the working directory before you answer.';

export interface DemoOptions {
  readonly modelLatencyMs: number;
  readonly sessionId?: string;
}

export async function demoCommand(context: CommandContext, options: DemoOptions): Promise<number> {
  if (!existsSync(SAMPLE_PROJECT))
    throw new UsageError(`the bundled sample project is missing from ${SAMPLE_PROJECT}; reinstall shadowlog`);
  const store = await context.store();
  const model = new ScriptedModel({ modelId: 'demo-script', replies: demoAgentReply, latencyMs: options.modelLatencyMs });
  const toolNames = new Map<string, string>();
  const harness = createHarness({
    store,
    model,
    tools: createFileTools(SAMPLE_PROJECT),
    systemPrompt: SYSTEM_PROMPT,
    maxOutputTokens: 2_048,
    ...(context.json ? {} : { onEvent: (event: LogEvent) => printEvent(context, event, toolNames) }),
  });
  const sessionId = options.sessionId ?? newSessionId().replace(/^session-/, 'demo-');
  if (!context.json) {
    context.print(`shadowlog demo: session ${sessionId} in ${store.location}`);
    context.print('The model here is a deterministic script, not a language model: it calls real file tools on the');
    context.print(`bundled sample project (${SAMPLE_PROJECT}) and computes its answers from their results.`);
  }
  const session = await harness.createSession(sessionId);
  const turns = [];
  try {
    for (const task of DEMO_TASKS) turns.push(await session.send(task.prompt));
  } finally {
    await session.close();
  }
  const replayed = await replay(store, sessionId, { turn: 2, step: 2 }, { resolveRenderer: rendererFor, registry: harness.registry });
  if (context.json) {
    const head = await store.head(sessionId);
    context.printJson({
      sessionId,
      events: head?.nextSeq,
      turns,
      replay: { turn: replayed.turn, step: replayed.step, requestDigest: replayed.requestDigest, verified: replayed.verified },
    });
    return 0;
  }
  context.print('\n════ The record: everything that happened, originals included ════');
  await showCommand(context, sessionId, { view: 'record' });
  context.print('\n════ The surface: what the model is shown now ════');
  await showCommand(context, sessionId, { view: 'surface' });
  context.print('\n════ Replay: what the model received on turn 2, step 2 ════');
  context.print(describeReplay(replayed, 200));
  context.print(
    `\nTry: shadowlog replay ${sessionId} --turn 4 --wire   ·   shadowlog show ${sessionId} --record   ·   shadowlog verify ${sessionId}`,
  );
  return 0;
}

function printEvent(context: CommandContext, event: LogEvent, toolNames: Map<string, string>): void {
  const data = event.data;
  switch (event.type) {
    case 'turn/start':
      context.print(`\n[turn ${String(data.turn)}]`);
      return;
    case 'user/message':
      context.print(`  user: ${textOf(data.content as unknown as ContentBlock[])}`);
      return;
    case 'model/request': {
      const request = data as unknown as ModelRequestData;
      context.print(
        `  · model call ${request.turn}.${request.step}: ${request.surfaceSeqs.length} messages, ~${request.estimatedTokens} tokens, digest ${request.requestDigest.slice(0, 12)}…`,
      );
      return;
    }
    case 'assistant/message': {
      const message = data as unknown as AssistantMessageData;
      for (const call of message.toolCalls) {
        toolNames.set(call.callId, call.name);
        context.print(`  assistant calls ${call.name}(${JSON.stringify(call.arguments)})`);
      }
      const text = textOf(message.content);
      if (text !== '') context.print(`  assistant: ${text.replaceAll('\n', '\n             ')}`);
      return;
    }
    case 'tool/result': {
      const result = data as unknown as ToolResultData;
      const text = textOf(result.content);
      const name = toolNames.get(result.callId) ?? 'tool';
      context.print(
        `  ${name} → ${result.error === undefined ? `${text.split('\n').length} lines, ${text.length} characters` : `error: ${result.error.message}`}`,
      );
      return;
    }
    case 'turn/end':
      context.print(`  (turn ${String(data.turn)} ${String(data.reason)})`);
      return;
    default:
      return;
  }
}

function textOf(content: readonly ContentBlock[]): string {
  return content.map((block) => (block.type === 'text' ? block.text : '')).join('');
}
