// Writes small agent sessions for the otel tests through SessionLog: turns of a user message, a
// model request rendering the current surface, an answer (with tool calls and their results),
// and session/end-seed boundaries, so that every event passes the log's own checks.

import type { EventDraft } from '../../src/log/index.js';
import { type LogStore, SessionLog } from '../../src/store/index.js';

export interface TurnPlan {
  /** Tool calls per step; a turn has one step more than this list (its last answer calls nothing). */
  readonly toolSteps: readonly number[];
  /** Start a new lifecycle (session/end-seed) before this turn. */
  readonly endSeedBefore?: boolean;
  /** The first tool call of the turn fails. */
  readonly toolError?: boolean;
}

export class SessionWriter {
  private surface: number[] = [];
  private turn = 0;
  private calls = 0;
  private clock = Date.parse('2026-05-01T10:00:00.000Z');

  private constructor(readonly log: SessionLog) {}

  static async create(store: LogStore, sessionId: string): Promise<SessionWriter> {
    const writer = new SessionWriter(undefined as unknown as SessionLog);
    const log = await SessionLog.create(store, sessionId, { now: () => writer.tick(), checkpoints: false });
    (writer as { log: SessionLog }).log = log;
    await writer.append([
      { type: 'system/message', data: { content: [{ type: 'text', text: 'You are a careful agent.' }] }, surfaceOp: 'append' },
    ]);
    return writer;
  }

  /** Continues an existing session (as a process that opens it does: a session/end-seed first). */
  static async open(store: LogStore, sessionId: string): Promise<SessionWriter> {
    const writer = new SessionWriter(undefined as unknown as SessionLog);
    writer.clock = Date.parse('2026-05-02T10:00:00.000Z');
    const log = await SessionLog.open(store, sessionId, { now: () => writer.tick(), checkpoints: false });
    (writer as { log: SessionLog }).log = log;
    // This writer writes no replacements: the surface is every appended message.
    for await (const page of store.read(sessionId)) {
      for (const event of page) {
        if (event.surfaceOp === 'append') writer.surface.push(event.seq);
        if (event.type === 'turn/start') writer.turn = Math.max(writer.turn, event.data.turn as number);
        if (event.type === 'assistant/message') writer.calls += (event.data.toolCalls as unknown[]).length;
      }
    }
    await writer.append([{ type: 'session/end-seed', data: { reason: 'continued' } }]);
    return writer;
  }

  private tick(): string {
    this.clock += 250;
    return new Date(this.clock).toISOString();
  }

  private async append(drafts: readonly EventDraft[]): Promise<void> {
    const events = await this.log.append(drafts);
    for (const event of events) if (event.surfaceOp === 'append') this.surface.push(event.seq);
  }

  async writeTurn(plan: TurnPlan): Promise<void> {
    if (plan.endSeedBefore === true) await this.append([{ type: 'session/end-seed', data: { reason: 'a new process' } }]);
    this.turn += 1;
    const turn = this.turn;
    await this.append([
      { type: 'turn/start', data: { turn } },
      { type: 'user/message', data: { content: [{ type: 'text', text: `question ${turn}` }] }, surfaceOp: 'append' },
    ]);
    const steps = [...plan.toolSteps, 0];
    for (const [index, toolCount] of steps.entries()) {
      await this.append([
        {
          type: 'model/request',
          data: {
            turn,
            step: index + 1,
            provider: 'openai',
            model: 'gpt-test',
            params: { maxOutputTokens: 256, temperature: 0.2 },
            surfaceSeqs: [...this.surface],
            requestDigest: 'a'.repeat(64),
            estimatedTokens: 100 + this.surface.length,
            rendererVersion: 'surface/1 test/1',
          },
        },
      ]);
      const callIds = Array.from({ length: toolCount }, () => `call-${++this.calls}`);
      await this.append([
        {
          type: 'assistant/message',
          data: {
            content: [{ type: 'text', text: `answer ${turn}.${index + 1}` }],
            toolCalls: callIds.map((callId) => ({ callId, name: 'read_file', arguments: { path: `${callId}.ts` } })),
            model: 'gpt-test',
            usage: { inputTokens: 100 + index, outputTokens: 10, cacheReadTokens: 50 },
          },
          surfaceOp: 'append',
        },
      ]);
      for (const [position, callId] of callIds.entries()) {
        const failed = plan.toolError === true && index === 0 && position === 0;
        await this.append([
          {
            type: 'tool/result',
            data: {
              callId,
              content: [{ type: 'text', text: `contents of ${callId}` }],
              ...(failed ? { error: { message: 'no such file' } } : {}),
            },
            surfaceOp: 'append',
          },
        ]);
      }
    }
    await this.append([{ type: 'turn/end', data: { turn, reason: 'completed' } }]);
  }
}
