// `shadowlog view <id> [--out FILE | --port P] [--tune report.json]`: the audit page. --out
// writes one self-contained HTML file (no network requests when opened); without it the page
// is served on 127.0.0.1 and follows the session as it grows, until Ctrl-C.

import { resolve } from 'node:path';
import type { Command } from 'commander';
import { assertSessionId } from '../../log/index.js';
import { checkOutputTarget, resolveSessionId, writeOutputFile } from '../../store/index.js';
import { BUILT_IN_PRICES, parseTuneReport } from '../../tune/index.js';
import { buildViewDocument, isLoopbackHost, startViewServer, viewPageParts } from '../../view/index.js';
import { createCallPricer } from '../call-price.js';
import { integerArgument, type RunCommand, readJsonFile } from '../command-kit.js';
import type { CommandContext } from '../context.js';
import { createCliRegistry } from '../registry.js';
import { rendererFor } from '../renderers.js';
import { UsageError } from '../usage-error.js';

export interface ViewCommandOptions {
  readonly out?: string;
  readonly port?: number;
  readonly host?: string;
  readonly allowRemote?: boolean;
  readonly tune?: string;
  readonly pollMs?: number;
  /** Replace an existing --out file. */
  readonly force?: boolean;
}

export async function viewCommand(context: CommandContext, given: string, options: ViewCommandOptions): Promise<number> {
  assertSessionId(given);
  if (options.out !== undefined && (options.port !== undefined || options.host !== undefined)) {
    throw new UsageError('--out writes a file; --port and --host serve the page. Give one or the other');
  }
  if (options.force === true && options.out === undefined) throw new UsageError('--force replaces an --out file; give --out FILE with it');
  const host = options.host ?? '127.0.0.1';
  if (!isLoopbackHost(host) && options.allowRemote !== true) {
    throw new UsageError(
      `--host ${host} is not a loopback address: anyone who can reach it could read the whole session. Use 127.0.0.1 (the default), or add --allow-remote to mean it`,
    );
  }
  const tune = options.tune === undefined ? undefined : readTuneReport(options.tune, context.io.cwd);
  const store = await context.store();
  const sessionId = await resolveSessionId(store, given);
  const registry = createCliRegistry();
  // Each call's cost by tune's dated list prices, the table named on the page.
  const pricing = { priceCall: createCallPricer(), prices: { date: BUILT_IN_PRICES.date, source: BUILT_IN_PRICES.source } };
  if (options.out !== undefined) {
    const file = resolve(context.io.cwd, options.out);
    const fileOptions = { force: options.force === true, mode: 0o600 };
    // Refused before the page is built; checked again when it is written.
    await checkOutputTarget(file, fileOptions);
    const viewDocument = await buildViewDocument(store, sessionId, {
      resolveRenderer: rendererFor,
      registry,
      ...pricing,
      packContent: true,
      ...(tune === undefined ? {} : { tune }),
    });
    const { parts } = await viewPageParts(viewDocument);
    // The page holds the whole session: readable by its owner only, as an export is. Written in
    // parts: a long session's page is larger than one string can be.
    const written = await writeOutputFile(
      file,
      async (write) => {
        for (const part of parts) await write(part);
      },
      fileOptions,
    );
    const { calls } = viewDocument.session;
    const verified = calls.filter((call) => call.check.status === 'verified').length;
    const failed = calls.filter((call) => call.check.status === 'failed').length;
    const offSurface = calls.filter((call) => call.offSurface !== undefined).length;
    // An imported call has no bytes to check: said so, so that "0 digest-verified" is not read as a failure.
    const reconstructed = calls.filter((call) => call.check.status === 'reconstructed').length;
    if (context.json) {
      context.printJson({
        sessionId,
        file,
        bytes: written.bytes,
        events: viewDocument.session.toSeq,
        calls: calls.length,
        verified,
        failed,
        offSurface,
        reconstructed,
      });
    } else {
      const n = (value: number) => value.toLocaleString('en-US');
      context.print(
        `wrote ${options.out}: ${sessionId}, ${viewDocument.session.toSeq.toLocaleString('en-US')} events, ${calls.length.toLocaleString('en-US')} model calls (${n(verified)} digest-verified, ${reconstructed === 0 ? '' : `${n(reconstructed)} imported with no bytes to check, `}${offSurface === 0 ? '' : `${n(offSurface)} not on the session's surface, `}${n(failed)} failed), ${written.bytes.toLocaleString('en-US')} bytes`,
      );
    }
    return failed > 0 ? 1 : 0;
  }
  if (!isLoopbackHost(host))
    context.io.stderr.write(
      `shadowlog: warning: serving ${sessionId} on ${host}, not loopback: anyone who can reach it can read the session\n`,
    );
  const server = await startViewServer({
    store,
    sessionId,
    resolveRenderer: rendererFor,
    registry,
    host,
    ...(options.port === undefined ? {} : { port: options.port }),
    ...(options.allowRemote === true ? { allowRemote: true } : {}),
    ...pricing,
    ...(tune === undefined ? {} : { tune }),
    ...(options.pollMs === undefined ? {} : { pollMs: options.pollMs }),
  });
  if (context.json) context.printJson({ sessionId, url: server.url });
  else context.print(`serving ${sessionId} at ${server.url} (following it as it grows; Ctrl-C stops)`);
  await untilStopped(context.io.signal);
  await server.close();
  return 0;
}

function readTuneReport(path: string, cwd: string): unknown {
  return parseTuneReport(
    readJsonFile(path, cwd, 'a tune report (the JSON of `shadowlog tune --json`, or report.json of `tune --out`)'),
    path,
  );
}

/** Resolves on Ctrl-C (SIGINT, SIGTERM) or when `signal` aborts. */
function untilStopped(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((done) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      signal?.removeEventListener('abort', stop);
      done();
    };
    if (signal?.aborted === true) return stop();
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    signal?.addEventListener('abort', stop);
  });
}

/** Registers `shadowlog view` on the program. */
export function registerViewCommand(program: Command, run: RunCommand): void {
  program
    .command('view <id>')
    .description(
      'the audit page: each call with the surface it was sent, digest-checked, compactions expandable to their originals, the token-pressure chart; served on 127.0.0.1 and following the session, or --out FILE',
    )
    .option('--out <file>', 'write one self-contained HTML file instead of serving it (it must not exist yet, unless --force)')
    .option('--force', 'replace the --out file if it exists (the file itself: a symbolic link there is replaced, not followed)')
    .option('--port <port>', 'serve on this port (default: any free one)', (value) => integerArgument(value, 'a port', 0))
    .option('--host <address>', 'serve on this address (default 127.0.0.1; anything else needs --allow-remote)')
    .option('--allow-remote', 'allow a --host that is not loopback: anyone who can reach it can read the session')
    .option('--tune <report>', 'show a tune report (the JSON of `shadowlog tune --json`) on the page too')
    .option('--poll-ms <ms>', 'on SQLite: how often to look for new events (default 200)', (value) =>
      integerArgument(value, 'milliseconds', 1),
    )
    .action((id: string, options: ViewCommandOptions) => run('read', (context) => viewCommand(context, id, options))());
}
