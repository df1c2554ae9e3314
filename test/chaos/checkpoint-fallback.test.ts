// A fold checkpoint that is proven (MACed under this machine's key, by a key holder's bug) but
// whose fold cannot take the events after it (issue 25, item 2): the open drops that fold, reads
// the whole log and says which checkpoint and which event, for a plain open, for the harness
// (whose observer goes back to its fresh state) and for `show`; nothing is appended on it, and
// verify, which walks the log, reports the checkpoint. On a real SQLite file and a real
// PostgreSQL schema. Before, the open threw the event's INVALID_SURFACE_OP and the session could
// not be opened at all.

import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createCompaction } from '../../src/compaction/compaction-capability.js';
import type { LogEvent } from '../../src/log/event.js';
import { encodeFoldCheckpoint } from '../../src/log/fold-checkpoint.js';
import { SessionObserver } from '../../src/spine/session-observer.js';
import { SessionLog } from '../../src/store/session-log.js';
import { keyedCheckpoint } from '../support/checkpoint-tamper.js';
import { createCliWorkspace } from '../support/cli.js';
import { findPostgres } from '../support/postgres.js';
import { type Backend, checkpointBackends, compactingHarness, eventsOf } from './support/checkpoint-backends.js';

const pg = await findPostgres({ announce: false });

describe.each(checkpointBackends(pg, 'fallback'))('a proven checkpoint the log cannot continue, on %s', (_name, createBackend) => {
  let workspace: ReturnType<typeof createCliWorkspace>;
  let backend: Backend;
  const cli = (args: string[]) => workspace.run(['--store', backend.storeArg, ...args]);

  beforeAll(() => {
    workspace = createCliWorkspace();
  });
  afterAll(async () => {
    workspace.cleanup();
    await pg?.dropSchemas();
  });
  beforeEach(() => {
    backend = createBackend(workspace.cwd);
  });
  afterEach(async () => {
    await backend.close();
  });

  it('falls back to the whole log, and says so, when the events after a proven checkpoint cannot be applied to its fold', async () => {
    const id = 'unappliable';
    expect((await cli(['demo', '--session', id, '--json'])).code).toBe(0);
    const store = await backend.open();
    const harness = compactingHarness(store);
    const counting = await harness.openSession(id, 'counting turns');
    const turns = counting.turns;
    await counting.close();
    const events = await eventsOf(store, id);
    const replacement = events.filter((event) => event.sourceEventSeqs !== undefined).at(-1) as LogEvent;
    // A fold one event before the newest replacement, with one of its sources taken off the
    // surface: well-formed, MACed under this machine's key (a key holder's bug), and the
    // replacement after it cannot be applied to it.
    const at = replacement.seq;
    const observer = new SessionObserver(id, [createCompaction()], () => {}).forLog();
    if (!('observer' in observer)) throw new Error('compaction saves its state');
    const walked = await SessionLog.open(store, id, { registry: harness.registry, checkpoints: false, toSeq: at, ...observer });
    const state = walked.fold.snapshot();
    const dropped = (replacement.sourceEventSeqs ?? []).find((seq) => state.nodeSeqs.includes(seq)) as number;
    const bad = encodeFoldCheckpoint(
      id,
      { ...state, nodeSeqs: state.nodeSeqs.filter((seq) => seq !== dropped) },
      { key: observer.observer.key, state: observer.observer.save() },
    );
    await store.writeCheckpoint(id, keyedCheckpoint(at, bad));
    const trueNodes = (await SessionLog.open(store, id, { registry: harness.registry, checkpoints: false })).fold.toArray();

    const expectedReport = {
      restoredFrom: undefined,
      ignored: [
        {
          seq: at,
          status: 'corrupt',
          reason: expect.stringMatching(
            new RegExp(`^event ${replacement.seq}, after it, cannot be applied to its fold \\(.+\\); the fold from it was dropped$`),
          ),
        },
      ],
    };
    const opened = await SessionLog.open(store, id, { registry: harness.registry });
    expect(opened.checkpointReport).toEqual(expectedReport);
    expect(opened.fold.toArray()).toEqual(trueNodes);
    // The harness too: its state goes back to fresh and is observed from seq 0.
    const session = await harness.openSession(id, 'after a checkpoint that cannot be continued');
    expect(session.log.checkpointReport).toEqual(expectedReport);
    expect(session.turns).toBe(turns);
    await session.close();
    const shown = await cli(['show', id]);
    expect(shown.code).toBe(0);
    expect(shown.stderr).toMatch(
      new RegExp(
        `^shadowlog: note: ${id}: fold checkpoint at seq ${at} ignored \\(corrupt: event ${replacement.seq}, after it, cannot be applied`,
      ),
    );
    // verify walks the log: the log is intact, and a proven checkpoint that differs from it is a
    // key holder's bug (or a leaked key) that it reports as a failure.
    const verified = await cli(['verify', id, '--json']);
    expect(verified.code).toBe(1);
    expect(JSON.parse(verified.stdout)).toMatchObject({
      ok: false,
      problems: [],
      checkpoints: [{ seq: at, status: 'corrupt', trustedByOpen: true, matchesLog: false }],
    });
  });
});
