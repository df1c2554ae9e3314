// Every number the page has is shown: on imported Claude Code and pi sessions, each call carries
// the calibrated meter's estimate that `stats --calls` gives it, the reported usage with its
// cache reads and writes, and a cost; the header's window says which rule gave it.

import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCallPricer } from '../../src/cli/call-price.js';
import { createCliRegistry } from '../../src/cli/registry.js';
import { rendererFor } from '../../src/cli/renderers.js';
import { meterSessionCalls } from '../../src/compaction/index.js';
import type { LogStore } from '../../src/store/log-store.js';
import { openSqliteStore } from '../../src/store/sqlite/index.js';
import { buildViewDocument, type ViewDocument } from '../../src/view/index.js';
import { createCliWorkspace } from '../support/cli.js';
import { CORPUS_FILES, corpusFile } from '../support/corpus-sessions.js';

const CLAUDE = 'claude-code-4d5611e5-241a-462a-8d15-5122611a9569';
const PI = 'pi-d703a1a9-1b7b-4fb1-b512-c9738b1fe617';

let workspace: ReturnType<typeof createCliWorkspace>;
let store: LogStore;
const documents = new Map<string, ViewDocument>();

beforeAll(async () => {
  workspace = createCliWorkspace();
  for (const file of [CORPUS_FILES.claudeMain, CORPUS_FILES.pi]) {
    const result = await workspace.run(['import', corpusFile(file)]);
    if (result.code !== 0) throw new Error(result.stderr);
  }
  store = await openSqliteStore(join(workspace.cwd, '.shadowlog', 'shadowlog.db'));
  for (const id of [CLAUDE, PI]) {
    documents.set(
      id,
      await buildViewDocument(store, id, { resolveRenderer: rendererFor, registry: createCliRegistry(), priceCall: createCallPricer() }),
    );
  }
}, 120_000);
afterAll(async () => {
  await store?.close();
  workspace?.cleanup();
});

describe("the page's figures", () => {
  it.each([CLAUDE, PI])('gives %s every call the estimate stats --calls gives it', async (id) => {
    const document = documents.get(id) as ViewDocument;
    const report = await meterSessionCalls(store, id);
    const metered = new Map(report.calls.map((row) => [row.seq, row]));
    expect(document.meter).toEqual({ estimator: report.estimator, calibrated: true });
    expect(document.session.calls.length).toBe(report.calls.length + report.offSurfaceCalls.length);
    for (const call of document.session.calls) {
      const row = metered.get(call.seq);
      expect(call.metered, `call #${call.seq}`).toEqual({
        estimatedTokens: row?.estimatedTokens,
        anchored: row?.anchored,
        error: row?.error,
      });
      if (call.usage !== undefined) {
        expect(call.usage.inputTokens).toBe(row?.reportedInputTokens);
        expect(call.cost).toBeDefined();
      }
    }
  });

  it('prices the Claude Code calls, and says where the window comes from', () => {
    const document = documents.get(CLAUDE) as ViewDocument;
    const reported = document.session.calls.filter((call) => call.usage !== undefined);
    expect(reported.length).toBeGreaterThan(100);
    for (const call of reported) expect(call.cost).toEqual({ usd: expect.any(Number) });
    expect(reported.some((call) => (call.usage?.cacheReadTokens ?? 0) > 0)).toBe(true);
    expect(document.window?.tokens).toEqual(expect.any(Number));
    expect(document.window?.rule).toMatch(/from the harness's own compactions: claude-opus-4-6 compacted at 170,251 tokens/);
  });
});
