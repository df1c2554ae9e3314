// The compaction meter's anchor (CompactionSessionState: the first and latest calls per model,
// prices of shadowed nodes) measures what CallMeter measures call by call, on the real corpus
// sessions, before and after their compactions: the capability triggers on the same calibrated
// figures that `stats --calls` and docs/meter.md report.

import { describe, expect, it } from 'vitest';
import { COMPACTION_EVENT_TYPES } from '../../src/compaction/index.js';
import { anchorKey, CompactionSessionState } from '../../src/compaction/session-state.js';
import { importFiles, readImportInputs } from '../../src/importers/index.js';
import { MemoryLogStore } from '../../src/index.js';
import { dataOf, EventTypeRegistry, SurfaceFold } from '../../src/log/index.js';
import { CallMeter, calibrationFactorOf, createEstimator, type MeterAnchor, SurfaceMeter } from '../../src/meter/index.js';
import { CORPUS_FILES, corpusFile } from '../support/corpus-sessions.js';

describe("compaction's calibrated anchor", () => {
  for (const file of [CORPUS_FILES.claudeMain, CORPUS_FILES.codexCompacted]) {
    it(`measures every call of ${file} as CallMeter does`, async () => {
      const store = new MemoryLogStore();
      const registry = new EventTypeRegistry(COMPACTION_EVENT_TYPES);
      const summary = await importFiles(store, await readImportInputs([corpusFile(file)], '/'), { format: 'auto', registry });
      const sessionId = summary.files[0]?.sessions[0]?.sessionId as string;
      const estimator = await createEstimator('script-aware');
      const factorOf = (provider: string, model: string) => calibrationFactorOf(provider, model, 'script-aware');
      const fold = new SurfaceFold({ registry });
      const state = new CompactionSessionState();
      const meter = new SurfaceMeter(estimator);
      const calls = new CallMeter({ estimator, factorOf, fold: { registry } });
      const measured: number[] = [];
      for await (const page of store.read(sessionId)) {
        for (const event of page) {
          fold.apply(event);
          calls.apply(event);
          if (event.type === 'model/request') {
            const { provider, model } = dataOf(event, 'model/request');
            const latest = state.anchor;
            const first = latest === undefined ? undefined : state.firstAnchors.get(anchorKey(latest.provider, latest.model));
            const anchor: MeterAnchor | undefined =
              latest === undefined || latest.model !== model
                ? undefined
                : { ...latest, ...(first === undefined ? {} : { first }), shadowedPrice: (seq) => state.shadowedPrice(seq) };
            measured.push(meter.measure(fold.toArray(), anchor, 0, factorOf(provider, model)).total);
          }
          state.observe(event);
        }
      }
      expect(calls.calls.some((call) => call.afterCompaction)).toBe(true);
      expect(measured).toEqual(calls.calls.map((call) => call.estimatedTokens));
    });
  }
});
