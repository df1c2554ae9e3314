// resolveSessionId: the session a command names, by its full id, a unique prefix of it, or the id
// its source harness gave it (and a prefix of that), on a real SQLite file and a real PostgreSQL
// schema. A prefix several sessions share is AMBIGUOUS_SESSION listing each with its source and
// first request; a name nothing matches is SESSION_NOT_FOUND; a prefix of a session and its
// sub-sessions names the session.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPACTION_EVENT_TYPES } from '../../src/compaction/index.js';
import { importFiles, readImportInputs } from '../../src/importers/index.js';
import { InvalidSessionIdError, SessionNotFoundError } from '../../src/log/errors.js';
import { EventTypeRegistry } from '../../src/log/index.js';
import { AmbiguousSessionError, type LogStore, readSessionOrigin, resolveSessionId } from '../../src/store/index.js';
import { openPostgresStore } from '../../src/store/postgres/index.js';
import { openSqliteStore } from '../../src/store/sqlite/index.js';
import { CORPUS_FILES, corpusFile } from '../support/corpus-sessions.js';
import { drafts, sealLog } from '../support/events.js';
import { findPostgres } from '../support/postgres.js';

const CLAUDE_UUID = '5c0375b4-57a5-4f26-b12d-d022ee4e51b7';
const CODEX_UUID = '019a93b9-f380-7600-98ff-940e6b99603c';

async function fill(store: LogStore): Promise<void> {
  for (const id of ['alpha-1', 'alpha-2', 'beta']) {
    await store.append(id, sealLog([drafts.startV2(), drafts.system(), drafts.user(`the request of ${id}\nin two lines`)]), {
      expectedSeq: 0,
    });
  }
  const cwd = process.cwd();
  // The small Claude Code session (with its two sidechains, sub-sessions `<id>.sidechain-…`) and a Codex one under their own ids.
  await importFiles(store, await readImportInputs([corpusFile(CORPUS_FILES.claudeSmall), corpusFile(CORPUS_FILES.codexOld)], cwd), {
    format: 'auto',
    registry: new EventTypeRegistry(COMPACTION_EVENT_TYPES),
  });
  // Claude Code's summarizer transcript under a name of its own: its source id is only in the lines it keeps.
  await importFiles(store, await readImportInputs([corpusFile(CORPUS_FILES.claudeSummarizer)], cwd), {
    format: 'auto',
    registry: new EventTypeRegistry(COMPACTION_EVENT_TYPES),
    sessionId: 'renamed',
  });
}

function resolutionCases(open: () => Promise<LogStore>) {
  let store: LogStore;
  beforeAll(async () => {
    store = await open();
    await fill(store);
  }, 60_000);
  afterAll(async () => {
    await store.close();
  });

  it('finds a full id with one look-up, as before, and a unique prefix of one', async () => {
    expect(await resolveSessionId(store, 'alpha-1')).toBe('alpha-1');
    expect(await resolveSessionId(store, 'be')).toBe('beta');
    expect(await resolveSessionId(store, `codex-${CODEX_UUID}`)).toBe(`codex-${CODEX_UUID}`);
  });

  it("finds an imported session by its source harness's id, whole or a prefix, and a session rather than its sub-sessions", async () => {
    expect(await resolveSessionId(store, CLAUDE_UUID)).toBe(`claude-code-${CLAUDE_UUID}`);
    expect(await resolveSessionId(store, '5c0375b4')).toBe(`claude-code-${CLAUDE_UUID}`);
    expect(await resolveSessionId(store, 'claude-code-5c')).toBe(`claude-code-${CLAUDE_UUID}`);
    const sub = (await store.listSessions()).map((session) => session.id).find((id) => id.includes('.sidechain-'));
    expect(sub).toBeDefined();
    expect(await resolveSessionId(store, sub as string)).toBe(sub);
  });

  it('finds a session imported under a name of its own by the source id in its lines', async () => {
    const renamed = (await store.listSessions()).map((session) => session.id).find((id) => id.startsWith('renamed'));
    expect(renamed).toBe('renamed.agent-acompact-e1f845');
    expect(await resolveSessionId(store, '4d5611e5')).toBe(renamed);
    expect(await resolveSessionId(store, CODEX_UUID.slice(0, 8))).toBe(`codex-${CODEX_UUID}`);
  });

  it('refuses a prefix several sessions share, naming each, and reads nothing more', async () => {
    const error = await resolveSessionId(store, 'alpha').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AmbiguousSessionError);
    const ambiguous = error as AmbiguousSessionError;
    expect(ambiguous.code).toBe('AMBIGUOUS_SESSION');
    expect(ambiguous.candidates.map((candidate) => [candidate.id, candidate.source, candidate.firstRequest])).toEqual([
      ['alpha-1', 'shadowlog', 'the request of alpha-1 in two lines'],
      ['alpha-2', 'shadowlog', 'the request of alpha-2 in two lines'],
    ]);
    expect(ambiguous.message).toContain('alpha-1 (shadowlog, "the request of alpha-1 in two lines")');
    expect(ambiguous.message).toContain('`shadowlog sessions`');
  });

  it('says a name nothing matches is not found, and what to run; refuses a name that cannot be an id', async () => {
    const error = await resolveSessionId(store, 'gamma').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SessionNotFoundError);
    expect((error as SessionNotFoundError).message).toContain('shadowlog sessions');
    await expect(resolveSessionId(store, '../etc')).rejects.toBeInstanceOf(InvalidSessionIdError);
  });

  it("reads an imported session's origin from the source lines it keeps", async () => {
    expect(await readSessionOrigin(store, 'renamed.agent-acompact-e1f845')).toEqual({
      source: 'claude-code',
      sourceId: '4d5611e5-241a-462a-8d15-5122611a9569',
      project: '/home/USER/projects/spotter-worktrees/spotter-dov',
      firstRequest: expect.stringMatching(/^Your task is to create a detailed summary of the conversation so far/),
    });
    expect(await readSessionOrigin(store, `codex-${CODEX_UUID}`)).toMatchObject({
      source: 'codex',
      sourceId: CODEX_UUID,
      project: '/home/user/projects/temp/chatbot-ui',
      firstRequest: expect.stringMatching(/^finish up the users work by rigging up the chatbot-ui to use lmstudio/),
    });
    expect(await readSessionOrigin(store, `claude-code-${CLAUDE_UUID}`)).toMatchObject({
      source: 'claude-code',
      sourceId: CLAUDE_UUID,
      project: '/path/to/Demo',
      firstRequest: '/orchestrator @CLAUDE.md を最新の状態にアップデートしてください',
    });
  });
}

describe('resolveSessionId on SQLite', () => {
  const directory = mkdtempSync(join(tmpdir(), 'shadowlog-resolve-'));
  afterAll(() => rmSync(directory, { recursive: true, force: true }));
  resolutionCases(() => openSqliteStore(join(directory, 'store.db')));
});

const server = await findPostgres({ announce: false });

describe.skipIf(server === undefined)('resolveSessionId on PostgreSQL', () => {
  const pg = server as NonNullable<typeof server>;
  afterAll(async () => {
    await pg.close();
  });
  resolutionCases(() => openPostgresStore(pg.url, { schema: pg.freshSchema() }));
});
