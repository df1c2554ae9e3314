// `shadowlog fork` and branches through the CLI (SPEC §14): a branch of the demo after turn 3 has
// the demo's surface there; `chat --session <branch>` sends the prefix and nothing the demo did
// after the fork; show, replay, origins, stats, view, verify and sessions work on a branch; the
// parent is never written.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCliWorkspace } from '../support/cli.js';
import { type FakeProviderServer, readFixtureChunks, startFakeProviderServer } from '../support/fake-provider-server.js';

type Envelope = { seq: number; type: string; data: Record<string, unknown>; hash: string };

describe('shadowlog fork', () => {
  const workspace = createCliWorkspace();
  let server: FakeProviderServer;
  let demo: Envelope[];
  const saved = { key: process.env.OPENAI_API_KEY, url: process.env.OPENAI_BASE_URL };

  const record = async (id: string): Promise<Envelope[]> =>
    (JSON.parse((await workspace.run(['--json', 'show', id, '--record'])).stdout) as { events: Envelope[] }).events;
  const turnEnd = (events: Envelope[], turn: number) =>
    (events.find((event) => event.type === 'turn/end' && event.data.turn === turn) as Envelope).seq;

  beforeAll(async () => {
    server = await startFakeProviderServer();
    delete process.env.OPENAI_API_KEY;
    delete process.env.OPENAI_BASE_URL;
    expect((await workspace.run(['demo', '--session', 'demo'])).code).toBe(0);
    demo = await record('demo');
  }, 120_000);
  afterAll(async () => {
    await server.close();
    workspace.cleanup();
    if (saved.key !== undefined) process.env.OPENAI_API_KEY = saved.key;
    if (saved.url !== undefined) process.env.OPENAI_BASE_URL = saved.url;
  });

  it('forks after turn 3: the surface is the demo’s there, chat sends the prefix only, and both verify with the demo unchanged', async () => {
    const at = turnEnd(demo, 3);
    const forked = await workspace.run(['fork', 'demo', '--turn', '3', '--as', 'b3']);
    expect(forked.stderr).toBe('');
    expect(forked.code).toBe(0);
    expect(forked.stdout).toContain(`forked demo after its event #${at} (the end of turn 3) as b3`);
    const parentSurface = JSON.parse((await workspace.run(['--json', 'show', 'demo', '--surface', '--at', String(at)])).stdout);
    const branchSurface = JSON.parse((await workspace.run(['--json', 'show', 'b3', '--surface'])).stdout);
    expect(branchSurface.nodes).toEqual(parentSurface.nodes);
    expect(branchSurface.atSeq).toBe(at + 1);

    server.enqueue({ type: 'sse', payloads: readFixtureChunks('openai-text') });
    const chat = await workspace.run(
      [
        'chat',
        '--provider',
        'openai',
        '--model',
        'gpt-4.1-mini',
        '--base-url',
        `${server.baseUrl}/v1`,
        '--session',
        'b3',
        '--no-compaction',
      ],
      'And on the branch?\n/quit\n',
    );
    expect(chat.stderr).toBe('');
    expect(chat.code).toBe(0);
    expect(chat.stdout).toContain(`b3 is a branch of demo after its event #${at}`);
    const body = server.requests.at(-1)?.body as string;
    const text = (event: Envelope) => ((event.data.content as Array<{ text?: string }>)[0]?.text ?? '').slice(0, 40);
    const users = demo.filter((event) => event.type === 'user/message' && (event as { surfaceOp?: unknown }).surfaceOp === 'append');
    for (const user of users) {
      if (user.seq < at) expect(body).toContain(JSON.stringify(text(user)).slice(1, -1));
      else expect(body).not.toContain(JSON.stringify(text(user)).slice(1, -1));
    }
    expect(body).toContain('And on the branch?');

    expect(await record('demo')).toEqual(demo);
    for (const id of ['demo', 'b3']) {
      const verify = JSON.parse((await workspace.run(['--json', 'verify', id])).stdout);
      expect(verify).toMatchObject({ ok: true });
    }
    const own = (await record('b3')).slice(at + 1).map((event) => event.type);
    expect(own.slice(0, 3)).toEqual(['session/fork', 'session/end-seed', 'turn/start']);
    // Its calls replay through the prefix: one of the demo's, and its own.
    for (const turn of ['1', '4']) {
      const replayed = JSON.parse((await workspace.run(['--json', 'replay', 'b3', '--turn', turn])).stdout);
      expect(replayed).toMatchObject({ verified: true });
    }
  }, 60_000);

  it('lists branches with their parent and fork seq, as a tree, and counts a branch’s own calls only', async () => {
    await workspace.run(['fork', 'demo', '--turn', '5', '--as', 'b5']);
    await workspace.run(['fork', 'b5', '--at', String(turnEnd(demo, 5) + 1), '--as', 'b5-b']);
    const listed = JSON.parse((await workspace.run(['--json', 'sessions'])).stdout) as Array<Record<string, unknown>>;
    const byId = new Map(listed.map((session) => [session.id, session]));
    expect(byId.get('b5')).toMatchObject({
      parent: { sessionId: 'demo' },
      forkSeq: turnEnd(demo, 5),
      calls: 0,
      events: turnEnd(demo, 5) + 2,
    });
    expect(byId.get('b5-b')).toMatchObject({ parent: { sessionId: 'b5' }, forkSeq: turnEnd(demo, 5) + 1 });
    expect(byId.get('demo')?.forkSeq).toBeUndefined();
    const tree = await workspace.run(['sessions', '--tree']);
    expect(tree.code).toBe(0);
    expect(tree.stdout).toContain(`├─ b5  branch after #${turnEnd(demo, 5)} of demo, 1 own event`);
    expect(tree.stdout).toMatch(/│ {2}└─ b5-b {2}branch after #\d+ of b5, 1 own event/);
    const table = await workspace.run(['sessions']);
    expect(table.stdout).toContain(`(branch of demo after #${turnEnd(demo, 5)}; counts its own events only)`);
  });

  it('shows, traces origins, counts stats and writes the audit page of a branch', async () => {
    const summary = demo.find((event) => event.type === 'compaction/summary') as Envelope;
    const summaryNode = demo.find((event) => event.seq > summary.seq && event.type === 'user/message') as Envelope;
    expect(summaryNode.seq).toBeLessThan(turnEnd(demo, 5));
    const parentOrigins = JSON.parse((await workspace.run(['--json', 'origins', 'demo', String(summaryNode.seq)])).stdout);
    const branchOrigins = JSON.parse((await workspace.run(['--json', 'origins', 'b5', String(summaryNode.seq)])).stdout);
    expect(branchOrigins).toEqual(parentOrigins);
    expect(parentOrigins.origins.length).toBeGreaterThan(1);
    const shown = await workspace.run(['show', 'b5', '--record']);
    expect(shown.stdout).toContain(`#${turnEnd(demo, 5) + 1} ── branch of demo after its event #${turnEnd(demo, 5)}`);
    const stats = await workspace.run(['--json', 'stats', 'b5']);
    expect(stats.code).toBe(0);
    const prefixCalls = demo.filter((event) => event.type === 'model/request' && event.seq < turnEnd(demo, 5)).length;
    expect(JSON.parse(stats.stdout)).toMatchObject({
      events: turnEnd(demo, 5) + 2,
      turns: 5,
      modelCalls: prefixCalls,
      fork: { parentSessionId: 'demo', forkSeq: turnEnd(demo, 5), prefixEvents: turnEnd(demo, 5) + 1, prefixModelCalls: prefixCalls },
    });
    expect((await workspace.run(['stats', 'b5'])).stdout).toContain(
      `a branch of demo after #${turnEnd(demo, 5)}: its events 0–${turnEnd(demo, 5)}, with ${prefixCalls} model calls, are its prefix, demo's, and counted there too`,
    );
    // Search finds a prefix event once, in the session it belongs to, not again in each branch.
    const found = JSON.parse((await workspace.run(['--json', 'search', 'empty last field'])).stdout) as {
      hits: Array<{ sessionId: string }>;
    };
    expect(found.hits.length).toBeGreaterThan(0);
    expect(new Set(found.hits.map((hit) => hit.sessionId))).toEqual(new Set(['demo']));
    const page = await workspace.run(['view', 'b5', '--out', 'b5.html']);
    expect(page.stderr).toBe('');
    expect(page.code).toBe(0);
    expect(page.stdout).toMatch(/^wrote b5\.html: b5, \d+ events/);
    expect(readFileSync(join(workspace.cwd, 'b5.html'), 'utf8')).toContain('session/fork');
    // A manual compaction of the branch may shadow prefix nodes; the parent keeps its own surface.
    const parentSurface = (await workspace.run(['--json', 'show', 'demo', '--surface'])).stdout;
    const compacted = await workspace.run(['compact', 'b5']);
    expect(compacted.code).toBe(0);
    expect(compacted.stdout).toMatch(/^b5: compacted \d+ nodes into summary #\d+/);
    expect((await workspace.run(['--json', 'show', 'demo', '--surface'])).stdout).toBe(parentSurface);
    for (const id of ['demo', 'b5']) expect(JSON.parse((await workspace.run(['--json', 'verify', id])).stdout)).toMatchObject({ ok: true });
  });

  it('refuses a fork point inside a tool call naming the nearest valid seqs, an unended turn, and a taken id, writing nothing', async () => {
    const call = demo.find((event) => event.type === 'assistant/message' && (event.data.toolCalls as unknown[]).length > 0) as Envelope;
    const refused = await workspace.run(['fork', 'demo', '--at', String(call.seq), '--as', 'bad']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      new RegExp(
        `INVALID_FORK_POINT: session demo cannot be forked at seq ${call.seq}: .*call-1-1.*fork at ${call.seq - 1} or ${call.seq + 1}`,
      ),
    );
    const turn = await workspace.run(['fork', 'demo', '--turn', '99']);
    expect(turn.stderr).toMatch(/TURN_NOT_ENDED: session demo has no turn\/end of turn 99/);
    expect((await workspace.run(['fork', 'demo', '--at', '3', '--turn', '2'])).code).toBe(2);
    expect((await workspace.run(['fork', 'demo', '--at', '3', '--as', 'demo'])).stderr).toMatch(/SESSION_EXISTS/);
    const listed = JSON.parse((await workspace.run(['--json', 'sessions'])).stdout) as Array<{ id: string }>;
    expect(listed.map((session) => session.id)).not.toContain('bad');
  });

  it('refuses a fork of a branch inside the prefix it reads from its parent, naming the parent, writing nothing', async () => {
    const at = turnEnd(demo, 3);
    const refused = await workspace.run(['fork', 'b3', '--turn', '3', '--as', 'b3-inner']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).not.toMatch(/STORE_FAILURE/);
    expect(refused.stderr).toMatch(
      new RegExp(
        `INVALID_FORK_POINT: session b3 cannot be forked at seq ${at}: .*reads from demo.*fork demo at ${at}.*fork at ${at + 1} instead`,
      ),
    );
    const listed = JSON.parse((await workspace.run(['--json', 'sessions'])).stdout) as Array<{ id: string }>;
    expect(listed.map((session) => session.id)).not.toContain('b3-inner');
  });

  it('exports a branch with its prefix; import links it where its parent is, and says it stores it whole where it is not; copy takes the parent along', async () => {
    expect((await workspace.run(['export', 'b5', '-o', 'b5.jsonl'])).code).toBe(0);
    expect((await workspace.run(['export', 'demo', '-o', 'demo.jsonl'])).code).toBe(0);
    const alone = await workspace.run(['--store', 'sqlite:alone.db', 'import', 'b5.jsonl']);
    expect(alone.stderr).toBe('');
    expect(alone.stdout).toContain(
      `exported as a branch of demo after #${turnEnd(demo, 5)}, stored whole (the prefix carried), not linked`,
    );
    expect(alone.stdout).toContain('has no session demo');
    await workspace.run(['--store', 'sqlite:linked.db', 'import', 'demo.jsonl']);
    const linked = await workspace.run(['--store', 'sqlite:linked.db', 'import', 'b5.jsonl']);
    expect(linked.stdout).toMatch(new RegExp(`a branch of demo after #${turnEnd(demo, 5)}: linked to it, \\d+ own events? written`));
    for (const store of ['sqlite:alone.db', 'sqlite:linked.db']) {
      const shown = JSON.parse((await workspace.run(['--store', store, '--json', 'show', 'b5', '--record'])).stdout);
      expect(shown.events).toEqual((await record('b5')) as unknown);
      expect(JSON.parse((await workspace.run(['--store', store, '--json', 'verify', 'b5'])).stdout)).toMatchObject({ ok: true });
    }
    const listed = JSON.parse((await workspace.run(['--store', 'sqlite:linked.db', '--json', 'sessions'])).stdout) as Array<{
      id: string;
      forkSeq?: number;
    }>;
    expect(listed.find((session) => session.id === 'b5')?.forkSeq).toBe(turnEnd(demo, 5));
    const copied = await workspace.run(['copy', '--from', 'sqlite:.shadowlog/shadowlog.db', '--to', 'sqlite:copied.db', 'b5-b']);
    expect(copied.code).toBe(0);
    expect(copied.stdout).toMatch(/copied demo: 93 events\ncopied b5: \d+ events\ncopied b5-b: 1 event\n/);
    const tree = await workspace.run(['--store', 'sqlite:copied.db', 'sessions', '--tree']);
    expect(tree.stdout).toMatch(/demo {2}93 events\n└─ b5 {2}branch after #\d+ of demo, \d+ own events? .*\n {3}└─ b5-b {2}branch after/);
  });

  it('tunes a branch from its fork point on when its parent is tuned too, its whole history when alone, and says so', async () => {
    const at = turnEnd(demo, 3);
    const prefixCalls = demo.filter((event) => event.type === 'model/request' && event.seq <= at).length;
    const demoCalls = demo.filter((event) => event.type === 'model/request').length;
    type Tuned = { sessions: Array<{ sessionId: string; calls: number; sharedPrefix?: unknown }>; prefixOnlyBranches?: string[] };
    const both = JSON.parse((await workspace.run(['--json', 'tune', 'demo', 'b3'])).stdout) as Tuned;
    expect(both.sessions.map(({ sessionId, calls, sharedPrefix }) => ({ sessionId, calls, sharedPrefix }))).toEqual([
      { sessionId: 'demo', calls: demoCalls, sharedPrefix: undefined },
      { sessionId: 'b3', calls: 1, sharedPrefix: { countedIn: 'demo', forkSeq: at, calls: prefixCalls } },
    ]);
    const alone = JSON.parse((await workspace.run(['--json', 'tune', 'b3'])).stdout) as Tuned;
    expect(alone.sessions).toMatchObject([{ sessionId: 'b3', calls: prefixCalls + 1 }]);
    expect(alone.sessions[0]?.sharedPrefix).toBeUndefined();
    // b5 and b5-b have no call of their own: left out, and said so; b3 counts its own call only.
    const all = await workspace.run(['tune', '--all']);
    expect(all.code).toBe(0);
    const text = all.stdout.replace(/\n {2}/g, ' ');
    expect(text).toContain(`2 sessions, ${demoCalls + 1} model calls`);
    expect(text).toContain('window 3,200 tokens in 1 session');
    expect(text).toContain('window 1,047,576 tokens in 1 session');
    expect(text).toContain(
      `branches: 1 branch counted from its fork point on (a shared prefix is counted once, in the session it belongs to): b3 after #${at} of demo; ${prefixCalls} prefix calls replayed there and not counted again`,
    );
    expect(text).toMatch(/branches left out: (b5, b5-b|b5-b, b5), with no model call of their own/);
  }, 120_000);

  it('says that chat --session on a missing session starts a new one', async () => {
    server.enqueue({ type: 'sse', payloads: readFixtureChunks('openai-text') });
    const chat = await workspace.run(
      ['chat', '--provider', 'openai', '--model', 'gpt-4.1-mini', '--base-url', `${server.baseUrl}/v1`, '--session', 'fresh-one'],
      'Hello\n/quit\n',
    );
    expect(chat.code).toBe(0);
    expect(chat.stdout).toContain('no session fresh-one in');
    expect(chat.stdout).toContain('starting a new session under that id');
  });
});
