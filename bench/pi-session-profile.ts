// Where a shadowlog turn's time goes, on a session of the pi-session benchmark: opens it as the
// benchmark's child does, runs three turns unmeasured, then profiles `turns` turns with the V8
// profiler (written to <out.cpuprofile>, for Chrome DevTools) and times the store's appends and
// the adapter's render around them. Prints the median and mean turn and the appends' share.
//
//   node --import tsx bench/pi-session-profile.ts <log.db> <session id> <turns> <out.cpuprofile>

import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import type { ModelRequest } from '../src/providers/language-model.js';
import { createHarness } from '../src/spine/harness.js';
import { openSqliteStore } from '../src/store/sqlite/index.js';
import { instantAnthropic } from './pi-session-child.js';
import { clock, elapsedMs, median } from './support.js';

const [database, sessionId, turnsText, out] = process.argv.slice(2);
if (database === undefined || sessionId === undefined || turnsText === undefined || out === undefined) {
  throw new Error('usage: pi-session-profile.ts <log.db> <session id> <turns> <out.cpuprofile>');
}
const store = await openSqliteStore(database);
const spans = { appendMs: 0, appends: 0, renderMs: 0 };
const append = store.append.bind(store);
store.append = async (...args: Parameters<typeof store.append>) => {
  const begin = clock();
  try {
    return await append(...args);
  } finally {
    spans.appendMs += elapsedMs(begin);
    spans.appends++;
  }
};
const model = instantAnthropic();
const render = model.render;
model.render = (request: ModelRequest, version?: string) => {
  const begin = clock();
  try {
    return render(request, version);
  } finally {
    spans.renderMs += elapsedMs(begin);
  }
};
const harness = createHarness({ store, model, stream: false, capabilities: [] });
const session = await harness.openSession(sessionId, 'profiled by bench/pi-session-profile.ts');
for (let warm = 1; warm <= 3; warm++) await session.send(`Warm-up ${warm}: note the state of the build.`);
Object.assign(spans, { appendMs: 0, appends: 0, renderMs: 0 });
const inspector = new Session();
inspector.connect();
await inspector.post('Profiler.enable');
await inspector.post('Profiler.start');
const samples: number[] = [];
const turns = Number(turnsText);
for (let turn = 1; turn <= turns; turn++) {
  const begin = clock();
  await session.send(`Turn ${turn}: note the state of the build.`);
  samples.push(elapsedMs(begin));
}
const { profile } = await inspector.post('Profiler.stop');
writeFileSync(out, JSON.stringify(profile));
const mean = samples.reduce((sum, value) => sum + value, 0) / samples.length;
const perTurn = (ms: number) => (ms / turns).toFixed(2);
process.stdout.write(
  `${turns} turns on ${session.log.fold.size} surface nodes: median ${median(samples).toFixed(2)} ms, mean ${mean.toFixed(2)} ms; ` +
    `store appends ${perTurn(spans.appendMs)} ms a turn (${spans.appends / turns} appends), the adapter's render ${perTurn(spans.renderMs)} ms\n`,
);
await session.close();
await store.close();
