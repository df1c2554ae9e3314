// Benchmark: `shadowlog otel <id>` (OpenTelemetry spans to an OTLP/HTTP receiver on loopback), as a
// ratio to `shadowlog export <id>` (JSONL) of the same session in the same run, in both protocols,
// with each command's peak memory. Sessions of 20,000 and 100,000 events (synthetic turns and
// compactions, bench/view-session.ts) in SQLite; each command runs in a child process of its own
// (bench/otel-child.ts) so that its peak resident size is its own. The receiver, in this process,
// reads each request whole and answers 200 without decoding it. A peak memory that does not grow
// with the session is what streaming in batches promises.
//
//   npm run bench -- otel
//   npx tsx bench/otel.bench.ts [--quick]

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { OtelChildResult } from './otel-child.js';
import {
  type BenchContext,
  type Benchmark,
  type BenchReport,
  createTempDirectory,
  type Figures,
  formatBytes,
  formatCount,
  formatMs,
  formatRatio,
  runIfMain,
  runJsonChild,
} from './support.js';

const CHILD = fileURLToPath(new URL('./otel-child.ts', import.meta.url));
const FULL = [20_000, 100_000];
const QUICK = [2_000, 10_000];

const runChild = (args: readonly string[]) =>
  runJsonChild<OtelChildResult>(`otel benchmark: child ${args[0]}`, ['--import', 'tsx', CHILD, ...args]);

async function startReceiver(): Promise<{ url: string; requests: () => number; bytes: () => number; close: () => Promise<void> }> {
  let requests = 0;
  let bytes = 0;
  const server = createServer((request, response) => {
    request.on('data', (chunk: Buffer) => (bytes += chunk.length));
    request.on('end', () => {
      requests++;
      const json = (request.headers['content-type'] ?? '').includes('json');
      response.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' });
      response.end(json ? '{}' : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => requests,
    bytes: () => bytes,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export const benchmark: Benchmark = {
  name: 'otel',
  description: 'shadowlog otel (OTLP/HTTP to a loopback receiver) against export (JSONL) of the same session, with peak memory',
  async run(context: BenchContext): Promise<BenchReport> {
    const directory = createTempDirectory('otel');
    const receiver = await startReceiver();
    const rows: string[][] = [];
    const figures: Figures = {};
    try {
      for (const events of context.quick ? QUICK : FULL) {
        const file = join(directory.path, `otel-${events}.db`);
        context.progress(`otel: building a ${formatCount(events)}-event session`);
        const built = await runChild(['build', file, String(events)]);
        context.progress('otel: export (JSONL)');
        const jsonl = await runChild(['export', file]);
        const results: Record<string, OtelChildResult & { requests: number; bytesSent: number }> = {};
        for (const protocol of ['http/protobuf', 'http/json']) {
          context.progress(`otel: otel --protocol ${protocol}`);
          const [requestsBefore, bytesBefore] = [receiver.requests(), receiver.bytes()];
          const result = await runChild(['otel', file, receiver.url, protocol]);
          results[protocol] = { ...result, requests: receiver.requests() - requestsBefore, bytesSent: receiver.bytes() - bytesBefore };
        }
        rows.push([
          formatCount(built.count),
          'export (JSONL)',
          formatMs(jsonl.ms),
          '1.00×',
          `${formatBytes(jsonl.count)} written`,
          formatBytes(jsonl.maxRss),
          formatBytes(jsonl.peakHeap),
        ]);
        for (const [protocol, result] of Object.entries(results)) {
          rows.push([
            formatCount(built.count),
            `otel ${protocol}`,
            formatMs(result.ms),
            formatRatio(result.ms / jsonl.ms),
            `${formatCount(result.count)} spans in ${formatCount(result.requests)} requests, ${formatBytes(result.bytesSent)}`,
            formatBytes(result.maxRss),
            formatBytes(result.peakHeap),
          ]);
        }
        figures[`events${built.count}`] = {
          exportMs: jsonl.ms,
          exportBytes: jsonl.count,
          exportMaxRss: jsonl.maxRss,
          ...Object.fromEntries(
            Object.entries(results).map(([protocol, result]) => [
              protocol,
              {
                ms: result.ms,
                ratio: result.ms / jsonl.ms,
                spans: result.count,
                requests: result.requests,
                bytes: result.bytesSent,
                maxRss: result.maxRss,
                peakHeap: result.peakHeap,
              },
            ]),
          ),
        };
      }
    } finally {
      await receiver.close();
      directory.cleanup();
    }
    return {
      tables: [
        {
          title: 'otel: spans to a loopback OTLP receiver, against export (JSONL) of the same session',
          columns: ['events', 'command', 'time', 'ratio', 'sent', 'peak RSS', 'peak heap'],
          rows,
        },
      ],
      notes: [
        'Each command ran once in a child process of its own (node --import tsx), in-process through the CLI main(), against the same SQLite file; times are the command alone, not the process start.',
        "peak RSS is the child process's maximum resident size (process.resourceUsage().maxRSS, start-up included); peak heap is the largest V8 heapUsed sampled every 20 ms.",
        'The receiver runs in the benchmark process on 127.0.0.1, reads each request and answers 200 without decoding it; spans are sent 512 per request, one request at a time.',
      ],
      figures,
    };
  },
};

// Run alone: `npx tsx bench/otel.bench.ts [--quick]`.
await runIfMain(import.meta.url, benchmark);
