// What the what-if tests share: the demo session in a workspace of its own, the demo agent
// behind a fake OpenAI-compatible server on 127.0.0.1, the calls around the demo's compactions,
// and a snapshot of the store to prove a refused what-if wrote nothing.

import { createCliWorkspace } from '../support/cli.js';
import { startDemoAgentUpstream } from '../support/demo-agent-upstream.js';
import type { FakeProviderServer } from '../support/fake-provider-server.js';

export const DEMO_ID = 'demo-whatif';

export interface RecordEvent {
  readonly seq: number;
  readonly type: string;
  readonly data: Record<string, unknown>;
  readonly hash: string;
  readonly sourceEventSeqs?: number[];
}

export interface DemoWhatIf {
  readonly workspace: ReturnType<typeof createCliWorkspace>;
  readonly upstream: FakeProviderServer;
  readonly record: readonly RecordEvent[];
  /** The model calls, in order. */
  readonly calls: ReadonlyArray<{ readonly seq: number; readonly turn: number; readonly step: number }>;
  /** The compactions' ids and the seqs of their summaries, in order. */
  readonly compactions: ReadonlyArray<{ readonly id: string; readonly seq: number }>;
  /** `--provider openai --model demo-script --base-url <fake>` and a window the restored requests fit. */
  readonly askFake: readonly string[];
  /** The sessions of the store: id, events, last hash. */
  snapshot(): Promise<string>;
  close(): Promise<void>;
}

export async function startDemoWhatIf(): Promise<DemoWhatIf> {
  const workspace = createCliWorkspace();
  const demo = await workspace.run(['demo', '--json', '--session', DEMO_ID]);
  if (demo.code !== 0) throw new Error(`the demo failed: ${demo.stderr}`);
  const upstream = await startDemoAgentUpstream();
  const record = (JSON.parse((await workspace.run(['show', DEMO_ID, '--record', '--json'])).stdout) as { events: RecordEvent[] }).events;
  const calls = record
    .filter((event) => event.type === 'model/request')
    .map((event) => ({ seq: event.seq, turn: event.data.turn as number, step: event.data.step as number }));
  const compactions = record
    .filter((event) => event.type === 'compaction/summary')
    .map((event) => ({ id: event.data.compactionId as string, seq: event.seq }));
  return {
    workspace,
    upstream,
    record,
    calls,
    compactions,
    askFake: ['--provider', 'openai', '--model', 'demo-script', '--base-url', `${upstream.baseUrl}/v1`, '--window', '40000'],
    async snapshot() {
      const sessions = JSON.parse((await workspace.run(['sessions', '--json'])).stdout) as Array<{
        id: string;
        events: number;
        updatedAt: string;
      }>;
      return JSON.stringify(
        sessions.map(({ id, events, updatedAt }) => ({ id, events, updatedAt })).sort((a, b) => a.id.localeCompare(b.id)),
      );
    },
    async close() {
      await upstream.close();
      workspace.cleanup();
    },
  };
}

/** The first model call after the compaction whose summary is `summarySeq`. */
export function callAfter(demo: DemoWhatIf, summarySeq: number): { seq: number; turn: number; step: number } {
  const call = demo.calls.find((candidate) => candidate.seq > summarySeq);
  if (call === undefined) throw new Error(`no call after #${summarySeq}`);
  return call;
}
