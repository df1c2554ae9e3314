// Sessions another harness forked by copying a session's history into a new file (Claude Code
// `--fork-session`, Codex `/fork` with `forked_from_id`) import as branches of that session when
// the import or the store holds it and the copy matches it as imported: the copied lines are not
// written again (the prefix is the parent's), the branch's surface is the parent's up to the
// copy's end plus its own turn, and both verify. Otherwise the file imports whole and the report
// says why.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryLogStore } from 'shadowlog';
import { COMPACTION_EVENT_TYPES } from 'shadowlog/compaction';
import { importFiles } from 'shadowlog/importers';
import { EventTypeRegistry, verifyLog } from 'shadowlog/log';
import { afterAll, describe, expect, it } from 'vitest';
import { claudeExchange, claudeForkSession, claudeSmall, codexFork, codexOld, jsonl } from './support/branch-fixtures.js';
import { eventsOf, surfaceTexts } from './support/branch-logs.js';

const registry = new EventTypeRegistry(COMPACTION_EVENT_TYPES);
const directory = mkdtempSync(join(tmpdir(), 'shadowlog-forks-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const file = (name: string, records: readonly Record<string, unknown>[]) => {
  const path = join(directory, name);
  const text = jsonl(records);
  writeFileSync(path, text);
  return { path, bytes: Buffer.from(text) };
};

const importAll = (store: MemoryLogStore, inputs: Array<{ path: string; bytes: Buffer }>) =>
  importFiles(store, inputs, { format: 'auto', registry });

describe('a Claude Code --fork-session file', () => {
  const parent = claudeSmall();
  const fork = claudeForkSession();
  const parentId = `claude-code-${parent.sessionId}`;
  const forkId = `claude-code-${fork.sessionId}`;

  it('imports as a branch of the session it copies, in one import with it (listed first or second)', async () => {
    const store = new MemoryLogStore();
    const summary = await importAll(store, [file('fork.jsonl', fork.records), file('parent.jsonl', parent.records)]);
    const report = summary.files[0]?.sessions[0];
    expect(report?.sessionId).toBe(forkId);
    expect(report?.fork).toMatchObject({ parentSessionId: parentId, stored: 'linked' });
    const forkSeq = report?.fork?.forkSeq as number;
    const parentEvents = await eventsOf(store, parentId);
    const forkEvents = await eventsOf(store, forkId);
    // It leaves where the parent ends: the copy is the whole parent.
    expect(forkSeq).toBe(parentEvents.length - 1);
    expect(forkEvents.slice(0, forkSeq + 1)).toEqual(parentEvents);
    expect(surfaceTexts(forkEvents)).toEqual([...surfaceTexts(parentEvents), 'Now add a settings page.', 'Settings page added.']);
    expect((await store.listSessions()).find((each) => each.id === forkId)?.parent).toEqual({ sessionId: parentId, forkSeq });
    expect((await verifyLog([forkEvents], { registry })).ok).toBe(true);
    // Again: nothing written.
    const again = await importAll(store, [file('fork.jsonl', fork.records), file('parent.jsonl', parent.records)]);
    expect(
      again.files.flatMap((each) => each.sessions.map((session) => session.status)).every((status) => status === 'already-present'),
    ).toBe(true);
  });

  it('links to the parent the store already holds', async () => {
    const store = new MemoryLogStore();
    await importAll(store, [file('parent.jsonl', parent.records)]);
    const summary = await importAll(store, [file('fork.jsonl', fork.records)]);
    expect(summary.files[0]?.sessions[0]?.fork).toMatchObject({ parentSessionId: parentId, stored: 'linked' });
  });

  it('imports whole, saying why, without its parent or when the copy differs', async () => {
    const alone = await importAll(new MemoryLogStore(), [file('fork.jsonl', fork.records)]);
    expect(alone.files[0]?.sessions[0]?.fork).toBeUndefined();
    expect(alone.files[0]?.sessions[0]?.unlinkedFork).toEqual({
      parentSessionId: parentId,
      reason: `neither this import nor the store holds ${parentId}; import it with this file, or before it, to link them`,
    });
    // Imported whole first, it stays whole when its parent comes later (its stored events never change).
    const store = new MemoryLogStore();
    await importAll(store, [file('fork.jsonl', fork.records)]);
    const later = await importAll(store, [file('parent.jsonl', parent.records), file('fork.jsonl', fork.records)]);
    expect(later.files[1]?.sessions[0]).toMatchObject({ status: 'already-present', unlinkedFork: { parentSessionId: parentId } });
    expect(later.files[1]?.sessions[0]?.unlinkedFork?.reason).toMatch(/^the store holds it already, imported whole before its parent was/);
    const changed = claudeForkSession({ line: 2 });
    const differs = await importAll(new MemoryLogStore(), [file('changed.jsonl', changed.records), file('parent.jsonl', parent.records)]);
    const report = differs.files[0]?.sessions[0];
    expect(report?.fork).toBeUndefined();
    expect(report?.unlinkedFork?.reason).toMatch(new RegExp(`its copy of ${parentId}'s history does not match`));
  });
});

describe('a --fork-session file rewound after the fork', () => {
  it('imports whole, each path its own session, so that no abandoned prompt stays on a surface, saying why', async () => {
    const parent = claudeSmall();
    const fork = claudeForkSession();
    // The fork's own prompt rewound and asked otherwise: its parent is the last copied record.
    const lastCopied = fork.records[fork.records.length - 3] as { uuid: string };
    const again = claudeExchange(
      fork.sessionId,
      lastCopied.uuid,
      'Now add a profile page.',
      'Profile page added.',
      '2025-09-08T09:00:00.000Z',
      'forkagain',
    );
    const store = new MemoryLogStore();
    const summary = await importAll(store, [file('parent.jsonl', parent.records), file('fork.jsonl', [...fork.records, ...again])]);
    const forkId = `claude-code-${fork.sessionId}`;
    const reports = summary.files.find((each) => each.path.endsWith('fork.jsonl'))?.sessions ?? [];
    const main = reports.find((report) => report.sessionId === forkId);
    expect(main?.fork).toBeUndefined();
    expect(main?.unlinkedFork?.reason).toMatch(/^it was rewound after the fork \(2 paths in the file\)/);
    const mainTexts = surfaceTexts(await eventsOf(store, forkId));
    expect(mainTexts.slice(-2)).toEqual(['Now add a profile page.', 'Profile page added.']);
    expect(mainTexts).not.toContain('Now add a settings page.');
    const branch = reports.find((report) => report.sessionId !== forkId);
    const branchTexts = surfaceTexts(await eventsOf(store, branch?.sessionId as string));
    expect(branchTexts.slice(-2)).toEqual(['Now add a settings page.', 'Settings page added.']);
    expect(branchTexts).not.toContain('Now add a profile page.');
  });
});

describe('a fork whose parent fails in the same import', () => {
  it('is stored whole, saying why', async () => {
    const parent = claudeSmall();
    const fork = claudeForkSession();
    const store = new MemoryLogStore();
    // The store holds the parent's session with other events: under a directory, the parent's file fails.
    const other = parent.records.map((record, index) =>
      index === 1 ? { ...record, message: { role: 'user', content: 'another first prompt' } } : record,
    );
    await importAll(store, [file('other-parent.jsonl', other)]);
    const inputs = [file('parent.jsonl', parent.records), file('fork.jsonl', fork.records)].map((input) => ({
      ...input,
      fromDirectory: true,
    }));
    const summary = await importAll(store, inputs);
    expect(summary.failed.map((failed) => failed.code)).toEqual(['SESSION_CONFLICT']);
    const report = summary.files.find((each) => each.path.endsWith('fork.jsonl'))?.sessions[0];
    expect(report?.fork).toMatchObject({
      parentSessionId: `claude-code-${parent.sessionId}`,
      stored: 'standalone',
      reason: `its parent claude-code-${parent.sessionId} was not imported (it failed)`,
    });
    expect(report?.written).toBe(report?.events);
    const events = await eventsOf(store, `claude-code-${fork.sessionId}`);
    expect(events).toHaveLength(report?.events as number);
    expect((await verifyLog([events], { registry })).ok).toBe(true);
  });
});

describe('a Codex rollout forked with /fork', () => {
  const parentRecords = codexOld();
  const fork = codexFork();
  const parentId = `codex-${fork.parentId}`;
  const forkId = `codex-${fork.sessionId}`;

  it('imports as a branch after the copied history, its own session_meta kept whole after the fork', async () => {
    const store = new MemoryLogStore();
    const summary = await importAll(store, [file('rollout-fork.jsonl', fork.records), file('rollout-parent.jsonl', parentRecords)]);
    const report = summary.files[0]?.sessions[0];
    expect(report?.sessionId).toBe(forkId);
    expect(report?.fork).toMatchObject({ parentSessionId: parentId, stored: 'linked' });
    const forkSeq = report?.fork?.forkSeq as number;
    const parentEvents = await eventsOf(store, parentId);
    const forkEvents = await eventsOf(store, forkId);
    expect(forkSeq).toBe(parentEvents.length - 1);
    expect(forkEvents.slice(forkSeq + 1, forkSeq + 3).map((event) => event.type)).toEqual(['session/fork', 'codex/session-meta']);
    expect(surfaceTexts(forkEvents).slice(-2)).toEqual(['Now write the tests.', 'Tests written.']);
    expect(surfaceTexts(forkEvents).slice(0, -2)).toEqual(surfaceTexts(parentEvents));
    expect((await verifyLog([forkEvents], { registry })).ok).toBe(true);
  });

  it('forks where a shorter copy ends (a fork from an earlier point)', async () => {
    const earlier = codexFork(40);
    const store = new MemoryLogStore();
    const summary = await importAll(store, [file('rollout-parent.jsonl', parentRecords), file('rollout-earlier.jsonl', earlier.records)]);
    const report = summary.files[1]?.sessions[0];
    expect(report?.fork).toMatchObject({ parentSessionId: parentId, stored: 'linked' });
    expect(report?.fork?.forkSeq).toBeLessThan((summary.files[0]?.sessions[0]?.events ?? 0) - 1);
  });

  it('imports whole with the link and the reason when the parent is not at hand', async () => {
    const summary = await importAll(new MemoryLogStore(), [file('rollout-fork.jsonl', fork.records)]);
    expect(summary.files[0]?.sessions[0]?.unlinkedFork).toEqual({
      parentSessionId: parentId,
      reason: `neither this import nor the store holds ${parentId}; import it with this rollout, or before it, to link them`,
    });
  });
});
