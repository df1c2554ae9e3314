// Runs the probe answerer's fake OpenAI-compatible server until stopped, printing its base URL:
// for walking `shadowlog tune --probe` by hand (`npx tsx test/support/probe-upstream-main.ts`).

import { startProbeUpstream } from './probe-upstream.js';

const server = await startProbeUpstream();
process.stdout.write(`${server.baseUrl}/v1\n`);
process.on('SIGTERM', () => {
  void server.close().then(() => process.exit(0));
});
process.on('SIGINT', () => {
  void server.close().then(() => process.exit(0));
});
