// The calibrated meter replayed over the corpus sessions: each source's files imported into a
// memory store, then every session read back through CallMeter. The calibration test and the
// meter-calibration bench both measure with this, so the figures in docs/meter.md and the
// assertions are the same computation.

import { COMPACTION_EVENT_TYPES } from '../../src/compaction/index.js';
import { importFiles, readImportInputs } from '../../src/importers/index.js';
import { MemoryLogStore } from '../../src/index.js';
import { EventTypeRegistry } from '../../src/log/index.js';
import { CallMeter, createEstimator, type EstimatorName, type MeteredCallRow } from '../../src/meter/index.js';
import { CORPUS_FILES, corpusFile } from './corpus-sessions.js';

export type CorpusSource = 'claude-code' | 'pi' | 'codex';

/** The corpus files of each source (the Claude Code summarizer's sidechain goes with its session). */
export const CORPUS_SOURCES: Readonly<Record<CorpusSource, readonly string[]>> = {
  'claude-code': [CORPUS_FILES.claudeMain, CORPUS_FILES.claudeSummarizer, CORPUS_FILES.claudeSmall],
  pi: [CORPUS_FILES.pi],
  codex: [CORPUS_FILES.codexOld, CORPUS_FILES.codexCompacted],
};

export interface MeteredSession {
  readonly sessionId: string;
  readonly calls: readonly MeteredCallRow[];
}

/**
 * Every session of `source`, each call metered as the calibrated meter saw it at the time.
 * `factorOf` gives the calibration factor of a model (the measured table by default).
 */
export async function meterCorpusSource(
  source: CorpusSource,
  estimatorName: EstimatorName,
  factorOf: (provider: string, model: string) => number,
): Promise<MeteredSession[]> {
  const store = new MemoryLogStore();
  const registry = new EventTypeRegistry(COMPACTION_EVENT_TYPES);
  const inputs = await readImportInputs(
    CORPUS_SOURCES[source].map((path) => corpusFile(path)),
    '/',
  );
  await importFiles(store, inputs, { format: 'auto', registry });
  const estimator = await createEstimator(estimatorName);
  const sessions: MeteredSession[] = [];
  for (const { id } of await store.listSessions()) {
    const meter = new CallMeter({ estimator, factorOf, fold: { registry } });
    for await (const page of store.read(id)) for (const event of page) meter.apply(event);
    sessions.push({ sessionId: id, calls: meter.calls });
  }
  return sessions;
}
