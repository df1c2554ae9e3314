// Runs the demo agent's fake OpenAI-compatible server until stopped, printing its base URL: for
// walking `shadowlog whatif` by hand (`npx tsx test/support/demo-agent-upstream-main.ts`).

import { startDemoAgentUpstream } from './demo-agent-upstream.js';

const server = await startDemoAgentUpstream();
process.stdout.write(`${server.baseUrl}/v1\n`);
process.on('SIGTERM', () => {
  void server.close().then(() => process.exit(0));
});
process.on('SIGINT', () => {
  void server.close().then(() => process.exit(0));
});
