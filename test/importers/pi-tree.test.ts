// pi session trees, written by pi's own SessionManager, imported as shadowlog branches (SPEC
// §14): the latest path is the main session, each path pi left a branch forking where it left
// (nested when it left a path that was itself left), each showing on its surface exactly what
// pi's buildSessionContext gives for its leaf; a path that left between a tool call and its
// result forks before the call and carries it; a re-import after pi went back keeps the stored
// main session and imports the new latest path as a branch.

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCliRegistry } from '../../src/cli/registry.js';
import { openStore, parseStoreSpec } from '../../src/cli/store-option.js';
import { type FileReport, importFiles, readImportInputs, type SessionReport } from '../../src/importers/index.js';
import { verifyLog } from '../../src/log/verify.js';
import type { LogStore } from '../../src/store/log-store.js';
import { MemoryLogStore } from '../../src/store/memory/memory-store.js';
import { nodeSha256Hex } from '../../src/store/node-sha256.js';
import { SessionLog } from '../../src/store/session-log.js';
import { createCliWorkspace } from '../support/cli.js';
import { findPostgres } from '../support/postgres.js';
import { piContextAt, piSession } from './support/pi-trees.js';

type Workspace = ReturnType<typeof createCliWorkspace>;

/** Each surface node as its role and text, as piContextAt gives pi's. */
async function surfaceOf(store: LogStore, sessionId: string): Promise<Array<{ role: string; text: string }>> {
  const log = await SessionLog.open(store, sessionId, { registry: createCliRegistry(), checkpoints: false });
  return log.fold.toArray().map((node) => {
    const role = node.type === 'assistant/message' ? 'assistant' : node.type === 'tool/result' ? 'tool' : 'user';
    const content = (node.event.data as { content?: Array<{ type: string; text?: string }> }).content ?? [];
    return { role, text: content.map((block) => (block.type === 'text' ? (block.text ?? '') : '')).join('') };
  });
}

/** The id of the last entry of the file at `path`: pi's leaf when it opens the file. */
function lastEntryId(path: string): string {
  const lines = readFileSync(path, 'utf8').trim().split('\n');
  return (JSON.parse(lines[lines.length - 1] as string) as { id: string }).id;
}

const server = await findPostgres({ announce: false });

/** Each store the CLI walks run on: a SQLite file, and a fresh PostgreSQL schema when a test server is set. */
const backends: Array<{ name: string; store: (cwd: string) => string }> = [
  { name: 'SQLite', store: (cwd) => `sqlite:${join(cwd, 'pi.db')}` },
  ...(server === undefined
    ? []
    : [
        {
          name: 'PostgreSQL',
          store: () => {
            const url = new URL(server.url);
            url.searchParams.set('schema', server.freshSchema());
            return url.toString();
          },
        },
      ]),
];

afterAll(async () => {
  await server?.close();
});

describe.each(backends)('pi session trees as branches, on $name', ({ store: storeOf }) => {
  let workspace: Workspace;
  let sessions: string;
  let store = '';
  beforeEach(() => {
    workspace = createCliWorkspace();
    sessions = join(workspace.cwd, 'sessions');
    mkdirSync(sessions);
    store = storeOf(workspace.cwd);
  });
  afterEach(() => workspace.cleanup());

  const cli = (...args: string[]) => workspace.run(['--store', store, ...args]);

  async function importJson(path: string): Promise<FileReport> {
    const result = await cli('--json', 'import', path);
    expect(result.code, result.stderr).toBe(0);
    return (JSON.parse(result.stdout) as { files: FileReport[] }).files[0] as FileReport;
  }

  async function withStore<T>(use: (store: LogStore) => Promise<T>): Promise<T> {
    const opened = await openStore(parseStoreSpec(store, workspace.cwd), 'read');
    try {
      return await use(opened);
    } finally {
      await opened.close();
    }
  }

  /** Every session of the report shows what pi shows for its leaf, and verifies. */
  async function expectSurfacesAsPi(path: string, report: FileReport, leafOf: (session: SessionReport) => string): Promise<void> {
    await withStore(async (store) => {
      for (const session of report.sessions) expect(await surfaceOf(store, session.sessionId)).toEqual(piContextAt(path, leafOf(session)));
    });
    for (const session of report.sessions) expect((await cli('verify', session.sessionId)).code).toBe(0);
  }

  it('imports a tree with a branch point as two sessions sharing the prefix, each with its own path, linked in sessions --json', async () => {
    const pi = piSession('/home/user/project', sessions);
    pi.user('read a.txt');
    pi.assistant('reading it', [{ id: 'call_1', name: 'read', arguments: { path: 'a.txt' } }]);
    pi.toolResult('call_1', 'read', 'alpha');
    const answered = pi.assistant('a.txt says alpha');
    pi.user('now try b');
    const abandoned = pi.assistant('b went badly');
    // pi's /tree back to the answer, with a summary of the path it leaves.
    pi.manager.branchWithSummary(answered, 'b was tried and went badly');
    pi.user('try c instead');
    const leaf = pi.assistant('c worked');

    const report = await importJson(pi.file);
    const [main, branch] = report.sessions as [SessionReport, SessionReport];
    expect(report.sessions).toHaveLength(2);
    expect(main.sessionId).toBe(`pi-${pi.manager.getSessionId()}`);
    expect(main.treePath).toEqual({ leafLine: 10, leafEntryId: leaf, latest: true });
    expect(branch.sessionId).toBe(`${main.sessionId}.branch-${pi.manager.getEntry(abandoned)?.parentId}`);
    expect(branch.fork).toMatchObject({ parentSessionId: main.sessionId, stored: 'linked', leavesAtLine: 6 });
    expect(branch.treePath).toEqual({ leafLine: 7, leafEntryId: abandoned, latest: false });
    // Only its own events are written: the prefix is the main session's.
    const forkSeq = branch.fork?.forkSeq as number;
    expect(branch.written).toBe(branch.events - forkSeq - 1);
    expect(branch.modelCalls).toBe(1);

    await expectSurfacesAsPi(pi.file, report, (session) => session.treePath?.leafEntryId as string);
    // The branch summary is on the path pi came back to (the main one), as pi shows it.
    await withStore(async (store) => {
      expect((await surfaceOf(store, main.sessionId)).map((node) => node.text)).toContain(
        'The following is a summary of a branch that this conversation came back from:\n\n<summary>\nb was tried and went badly</summary>',
      );
      expect((await surfaceOf(store, branch.sessionId)).some((node) => node.text.includes('b was tried'))).toBe(false);
    });

    const listed = JSON.parse((await cli('--json', 'sessions')).stdout) as Array<{
      id: string;
      parent?: { sessionId: string };
      forkSeq?: number;
    }>;
    expect(listed.find((session) => session.id === main.sessionId)?.parent).toBeUndefined();
    expect(listed.find((session) => session.id === branch.sessionId)).toMatchObject({ parent: { sessionId: main.sessionId }, forkSeq });

    const text = await cli('import', pi.file);
    expect(text.stdout).toContain(`unchanged: ${branch.sessionId} (a branch of ${main.sessionId} after #${forkSeq})`);
  });

  it('nests a path that left an abandoned path as a branch of that branch', async () => {
    const pi = piSession('/home/user/project', sessions);
    pi.user('one');
    const first = pi.assistant('answer one');
    pi.user('two');
    const second = pi.assistant('answer two');
    pi.user('three');
    pi.assistant('answer three');
    pi.manager.branch(second);
    pi.user('four');
    const fourth = pi.assistant('answer four');
    pi.user('five');
    pi.assistant('answer five');
    pi.manager.branch(fourth);
    pi.user('six');
    pi.assistant('answer six');
    pi.manager.branch(first);
    pi.user('seven');
    pi.assistant('answer seven');

    const report = await importJson(pi.file);
    const ids = report.sessions.map((session) => session.sessionId);
    const parents = report.sessions.map((session) => (session.fork === undefined ? null : ids.indexOf(session.fork.parentSessionId)));
    const texts = report.sessions.map((session) => piContextAt(pi.file, session.treePath?.leafEntryId as string).at(-1)?.text);
    // Main: the latest path (seven); the path it left at "two" goes on to the latest below it
    // (six); the paths that left that one (three, five) are its branches.
    expect(texts).toEqual(['answer seven', 'answer six', 'answer three', 'answer five']);
    expect(parents).toEqual([null, 0, 1, 1]);
    await expectSurfacesAsPi(pi.file, report, (session) => session.treePath?.leafEntryId as string);
    const listed = JSON.parse((await cli('--json', 'sessions')).stdout) as Array<{ id: string; parent?: { sessionId: string } }>;
    expect(ids.map((id) => listed.find((session) => session.id === id)?.parent?.sessionId ?? null)).toEqual([null, ids[0], ids[1], ids[1]]);
  });

  it('forks a path that left between a tool call and its result before the call, carries the call, and says why', async () => {
    const pi = piSession('/home/user/project', sessions);
    pi.user('list the files');
    const calling = pi.assistant('listing', [{ id: 'call_ls', name: 'ls', arguments: {} }]);
    pi.toolResult('call_ls', 'ls', 'a.txt b.txt');
    pi.assistant('two files');
    // /tree back to the call itself: the next prompt follows a call that never gets its result.
    pi.manager.branch(calling);
    pi.user('never mind, say hello');
    pi.assistant('hello');

    const report = await importJson(pi.file);
    const [main, branch] = report.sessions as [SessionReport, SessionReport];
    // The main path keeps the unanswered call (as pi does); the path with the result left after it.
    expect(branch.fork?.leavesAtLine).toBe(4);
    expect(branch.fork?.carried).toEqual({
      fromLine: 3,
      toLine: 3,
      reason: 'forking where it leaves, after line 3, it would leave the tool call "call_ls" (seq 5) without its result',
    });
    expect(branch.fork?.forkSeq).toBe(3);
    await expectSurfacesAsPi(pi.file, report, (session) => session.treePath?.leafEntryId as string);
    expect(main.treePath?.latest).toBe(true);
    const text = await cli('import', pi.file);
    expect(text.stdout).toContain(`unchanged: ${branch.sessionId}`);
    // A fresh store prints why in the import's text.
    const again = await workspace.run(['--store', 'sqlite:other.db', 'import', pi.file]);
    expect(again.stdout).toContain(
      'forks before line 3, not where it leaves (line 4): forking where it leaves, after line 3, it would leave the tool call "call_ls" (seq 5) without its result; line 3, shared with its parent, is mapped again in its own events',
    );
  });

  it('forks a second root (pi went back before the first message) after the header', async () => {
    const pi = piSession('/home/user/project', sessions);
    pi.user('first try');
    pi.assistant('first answer');
    pi.manager.resetLeaf();
    pi.user('second try');
    pi.assistant('second answer');
    const report = await importJson(pi.file);
    expect(report.sessions.map((session) => session.fork?.forkSeq ?? null)).toEqual([null, 1]);
    await expectSurfacesAsPi(pi.file, report, (session) => session.treePath?.leafEntryId as string);
  });

  it('keeps the stored main session when pi goes back after an import, and imports the new latest path as a branch', async () => {
    const pi = piSession('/home/user/project', sessions);
    pi.user('one');
    const first = pi.assistant('answer one');
    pi.user('two');
    pi.assistant('answer two');
    const imported = await importJson(pi.file);
    expect(imported.sessions.map((session) => session.status)).toEqual(['imported']);
    expect(imported.sessions[0]?.treePath).toBeUndefined();
    const mainId = imported.sessions[0]?.sessionId as string;

    // The file grows on the main path: the main session grows.
    pi.user('three');
    const third = pi.assistant('answer three');
    const grown = await importJson(pi.file);
    expect(grown.sessions.map((session) => [session.sessionId, session.status])).toEqual([[mainId, 'grew']]);
    const head = await withStore((store) => store.head(mainId));

    // pi goes back to the first answer and carries on: its latest path is a new one.
    pi.manager.branch(first);
    pi.user('four');
    pi.assistant('answer four');
    const back = await importJson(pi.file);
    const [main, branch] = back.sessions as [SessionReport, SessionReport];
    expect([main.status, branch.status]).toEqual(['already-present', 'imported']);
    expect(main.treePath).toMatchObject({ leafEntryId: third, latest: false });
    expect(main.treePath?.note).toBe(
      `pi has gone back since ${mainId} was imported: its latest path, to line 9, is the branch ${branch.sessionId}; this session keeps the path the store holds, to line 7`,
    );
    expect(branch.treePath).toMatchObject({ leafEntryId: lastEntryId(pi.file), latest: true });
    expect(branch.fork).toMatchObject({ parentSessionId: mainId, leavesAtLine: 8 });
    expect(await withStore((store) => store.head(mainId))).toEqual(head);
    await expectSurfacesAsPi(pi.file, back, (session) => session.treePath?.leafEntryId as string);

    // The branch grows where pi goes on; the main session stays as stored.
    pi.user('five');
    pi.assistant('answer five');
    const onBranch = await importJson(pi.file);
    expect(onBranch.sessions.map((session) => [session.sessionId, session.status])).toEqual([
      [mainId, 'already-present'],
      [branch.sessionId, 'grew'],
    ]);
    await expectSurfacesAsPi(pi.file, onBranch, (session) => session.treePath?.leafEntryId as string);
    const text = (await cli('import', pi.file)).stdout;
    expect(text).toContain(`    ${main.treePath?.note?.replace('line 9', 'line 11')}`);

    // A store that never held it takes the latest path as the main session.
    const fresh = await workspace.run(['--store', 'sqlite:fresh.db', '--json', 'import', pi.file]);
    const freshReport = (JSON.parse(fresh.stdout) as { files: FileReport[] }).files[0] as FileReport;
    expect(freshReport.sessions[0]?.treePath).toMatchObject({ leafEntryId: lastEntryId(pi.file), latest: true });
  });
});

describe('pi trees pi would not write', () => {
  it('takes an entry whose parent is not before it as a root, and a repeated id as a new entry, and reports both', async () => {
    const workspace = createCliWorkspace();
    try {
      const line = (value: Record<string, unknown>) => JSON.stringify({ timestamp: '2026-11-01T10:00:00.000Z', ...value });
      const user = (text: string) => ({ role: 'user', content: text, timestamp: 0 });
      const answer = (text: string) => ({
        role: 'assistant',
        content: [{ type: 'text', text }],
        provider: 'anthropic',
        model: 'claude-sonnet-4-5',
        stopReason: 'stop',
        timestamp: 0,
      });
      const file = join(workspace.cwd, 'session.jsonl');
      writeFileSync(
        file,
        `${[
          line({ type: 'session', version: 3, id: 'odd', cwd: '/home/user/project' }),
          line({ type: 'message', id: 'a', parentId: null, message: user('first') }),
          line({ type: 'message', id: 'b', parentId: 'a', message: answer('first answer') }),
          line({ type: 'message', id: 'c', parentId: 'later', message: user('an orphan') }),
          line({ type: 'message', id: 'b', parentId: 'a', message: user('a repeated id') }),
        ].join('\n')}\n`,
      );
      const store = new MemoryLogStore();
      const summary = await importFiles(store, await readImportInputs([file], workspace.cwd), {
        format: 'auto',
        registry: createCliRegistry(),
      });
      const sessions = summary.files[0]?.sessions ?? [];
      expect(sessions.map((session) => session.sessionId)).toEqual(['pi-odd', 'pi-odd.branch-c', 'pi-odd.branch-b']);
      expect(sessions[0]?.unmapped).toEqual([
        { line: 4, reason: 'its parent entry "later" is not before it in the file; it is taken as a root, as pi takes an orphan' },
        { line: 5, reason: 'entry id "b" was used by an earlier entry; this one is taken as line-5' },
      ]);
      // The main session is the path to the last entry: a, then the repeated-id entry.
      expect((await surfaceOf(store, 'pi-odd')).map((node) => node.text)).toEqual(['first', 'a repeated id']);
      expect((await surfaceOf(store, 'pi-odd.branch-c')).map((node) => node.text)).toEqual(['an orphan']);
      expect(sessions[1]?.fork).toMatchObject({ parentSessionId: 'pi-odd', forkSeq: 1 });
      expect((await surfaceOf(store, 'pi-odd.branch-b')).map((node) => node.text)).toEqual(['first', 'first answer']);
    } finally {
      workspace.cleanup();
    }
  });
});

/** One step of a random tree: a prompt and an answer (maybe through a tool call), or a move back to an earlier entry. */
type TreeStep = { kind: 'turn'; tool: boolean } | { kind: 'back'; to: number; summary: boolean } | { kind: 'compact'; keep: number };

const treeStep: fc.Arbitrary<TreeStep> = fc.oneof(
  fc.record({ kind: fc.constant('turn' as const), tool: fc.boolean() }),
  fc.record({ kind: fc.constant('back' as const), to: fc.nat(), summary: fc.boolean() }),
  fc.record({ kind: fc.constant('compact' as const), keep: fc.nat() }),
);

/** Writes a tree with pi's SessionManager, a first turn and then `steps`; `after(index)` runs after each step. */
async function writeTree(
  directory: string,
  steps: readonly TreeStep[],
  after: (index: number, file: string) => Promise<void> = async () => {},
) {
  const pi = piSession('/home/user/project', directory);
  const entries: string[] = [];
  let calls = 0;
  for (const [index, each] of [{ kind: 'turn' as const, tool: false }, ...steps].entries()) {
    if (each.kind === 'compact') {
      // pi's compaction keeps the path from a recent prompt on: not the first (that would keep
      // everything), and after the path's last compaction (a later compaction that keeps what an
      // earlier one summarized is pi showing shadowed messages again, which a log cannot).
      const path = pi.manager.getBranch();
      const lastCompaction = path.findLastIndex((entry) => entry.type === 'compaction');
      const prompts = path
        .filter((entry, index) => index > lastCompaction && entry.type === 'message' && entry.message.role === 'user')
        .filter((entry) => entry !== path.find((first) => first.type === 'message' && first.message.role === 'user'));
      const kept = prompts[each.keep % Math.max(1, prompts.length)];
      if (kept !== undefined) entries.push(pi.manager.appendCompaction(`summary before ${kept.id}`, kept.id, 1000));
    } else if (each.kind === 'back') {
      const to = entries[each.to % entries.length] as string;
      if (each.summary) entries.push(pi.manager.branchWithSummary(to, `left a path at ${to}`));
      else pi.manager.branch(to);
    } else {
      entries.push(pi.user(`prompt ${entries.length}`));
      if (each.tool) {
        const id = `call_${++calls}`;
        entries.push(pi.assistant(`calling ${id}`, [{ id, name: 'read', arguments: { n: calls } }]));
        entries.push(pi.toolResult(id, 'read', `result of ${id}`));
      }
      entries.push(pi.assistant(`answer ${entries.length}`));
    }
    await after(index, pi.file);
  }
  return pi;
}

describe('any pi session tree', () => {
  let workspace: Workspace;
  let run = 0;
  beforeEach(() => {
    workspace = createCliWorkspace();
  });
  afterEach(() => workspace.cleanup());
  const options = { format: 'auto' as const, registry: createCliRegistry() };
  const importInto = async (store: LogStore, file: string) =>
    (await importFiles(store, await readImportInputs([file], workspace.cwd), options)).files[0] as FileReport;
  const leafOf = (file: string) => (session: SessionReport) => session.treePath?.leafEntryId ?? lastEntryId(file);

  /** Every session shows what pi shows for its leaf, one session per leaf of the tree, and verifies. */
  async function expectEveryLeafAsPi(store: LogStore, report: FileReport, pi: Awaited<ReturnType<typeof writeTree>>): Promise<void> {
    const leaves = pi.manager.getEntries().filter((entry) => pi.manager.getChildren(entry.id).length === 0);
    expect(report.sessions.map(leafOf(pi.file)).sort()).toEqual(leaves.map((entry) => entry.id).sort());
    for (const session of report.sessions) {
      expect(await surfaceOf(store, session.sessionId)).toEqual(piContextAt(pi.file, leafOf(pi.file)(session)));
      const verified = await verifyLog(store.read(session.sessionId), { registry: createCliRegistry(), hasher: nodeSha256Hex });
      expect(verified.ok).toBe(true);
    }
  }

  it('imports as sessions that each show what pi shows for one leaf, one per leaf, that verify, and that a second import leaves as they are', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(treeStep, { minLength: 1, maxLength: 14 }), async (steps) => {
        const directory = join(workspace.cwd, `run-${run++}`);
        mkdirSync(directory);
        const pi = await writeTree(directory, steps);
        const store = new MemoryLogStore();
        await expectEveryLeafAsPi(store, await importInto(store, pi.file), pi);
        const again = await importInto(store, pi.file);
        expect(again.sessions.every((session) => session.status === 'already-present')).toBe(true);
      }),
      { numRuns: 40 },
    );
  });

  it('imported while pi writes it and again at the end, keeps every session stored (unchanged or grown, never rewritten), each as pi shows its leaf', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(treeStep, { minLength: 1, maxLength: 14 }), fc.array(fc.nat(), { maxLength: 3 }), async (steps, cuts) => {
        const directory = join(workspace.cwd, `run-${run++}`);
        mkdirSync(directory);
        const store = new MemoryLogStore();
        const stored = new Map<string, string>();
        const importsAt = new Set(cuts.map((cut) => cut % (steps.length + 1)));
        const keptAsStored = async (report: FileReport) => {
          // What an earlier import stored is still there, a start of what the store holds now.
          for (const [sessionId, hash] of stored) {
            const events = [];
            for await (const page of store.read(sessionId)) events.push(...page);
            expect(events.some((event) => event.hash === hash)).toBe(true);
          }
          for (const session of report.sessions) {
            const head = await store.head(session.sessionId);
            if (head !== undefined) stored.set(session.sessionId, head.lastHash);
          }
        };
        const pi = await writeTree(directory, steps, async (index, file) => {
          if (importsAt.has(index)) await keptAsStored(await importInto(store, file));
        });
        const report = await importInto(store, pi.file);
        await keptAsStored(report);
        await expectEveryLeafAsPi(store, report, pi);
      }),
      { numRuns: 40 },
    );
  });
});
