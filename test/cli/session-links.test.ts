// A session the proxy linked to the one it likely continues (session/start.continues) is shown
// so by `sessions`, `show --surface` and `show --record`, and carried in their JSON.

import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionLog } from '../../src/store/session-log.js';
import { openSqliteStore } from '../../src/store/sqlite/index.js';
import { createCliWorkspace } from '../support/cli.js';

describe('a linked session', () => {
  let workspace: ReturnType<typeof createCliWorkspace>;
  beforeEach(() => {
    workspace = createCliWorkspace();
  });
  afterEach(() => workspace.cleanup());

  it('says which session it likely continues, and why', async () => {
    const path = join(workspace.cwd, 'links.db');
    const store = await openSqliteStore(path);
    await SessionLog.create(store, 'earlier', { harnessVersion: 'shadowlog proxy' });
    const continues = { sessionId: 'earlier', reason: 'the same system prompt, tools and model', evidence: { idleSeconds: 12 } };
    await SessionLog.create(store, 'later', { harnessVersion: 'shadowlog proxy', continues });
    await store.close();
    const at = ['--store', `sqlite:${path}`];

    const listed = await workspace.run([...at, 'sessions']);
    expect(listed.stdout).toMatch(/later .*\(likely continues earlier\)/);
    const json = JSON.parse((await workspace.run([...at, 'sessions', '--json'])).stdout) as Array<{ id: string; continues?: unknown }>;
    expect(json.find((session) => session.id === 'later')?.continues).toEqual(continues);
    expect(json.find((session) => session.id === 'earlier')?.continues).toBeUndefined();

    const record = await workspace.run([...at, 'show', 'later', '--record']);
    expect(record.stdout).toContain('#0 ── session started');
    expect(record.stdout).toContain('likely continues earlier: the same system prompt, tools and model');
    expect((await workspace.run([...at, 'show', 'later', '--surface'])).stdout).toContain('likely continues earlier (a link, not a merge');
    const surface = JSON.parse((await workspace.run([...at, 'show', 'later', '--surface', '--json'])).stdout) as { continues?: unknown };
    expect(surface.continues).toEqual(continues);
    expect((await workspace.run([...at, 'verify', 'later'])).code).toBe(0);
  });
});
