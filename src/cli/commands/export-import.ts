// `shadowlog export <id>` and `shadowlog import <file>`: JSONL out and in.

import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { SessionNotFoundError } from '../../log/errors.js';
import { assertSessionId } from '../../log/session-id.js';
import { exportSessionToFile } from '../../store/export-file.js';
import { exportSession, importSession, importSessionFile } from '../../store/jsonl.js';
import type { CommandContext } from '../context.js';
import { createCliRegistry } from '../registry.js';
import { UsageError } from '../usage-error.js';

export async function exportCommand(context: CommandContext, sessionId: string, outputPath: string | undefined): Promise<number> {
  assertSessionId(sessionId);
  const store = await context.store();
  if ((await store.head(sessionId)) === undefined) throw new SessionNotFoundError(sessionId);
  if (outputPath === undefined || outputPath === '-') {
    await exportSession(store, sessionId, context.io.stdout);
    return 0;
  }
  // Written beside the target and renamed when complete: a failed export leaves no file.
  const written = await exportSessionToFile(store, sessionId, resolve(context.io.cwd, outputPath));
  if (context.json) context.printJson({ sessionId, events: written.events, file: written.path, headHash: written.headHash });
  else context.print(`exported ${written.events} events of ${sessionId} to ${outputPath}`);
  return 0;
}

export async function importCommand(context: CommandContext, path: string, as: string | undefined): Promise<number> {
  const store = await context.store();
  const options = { registry: createCliRegistry(), ...(as === undefined ? {} : { sessionId: assertSessionId(as) }) };
  let result: Awaited<ReturnType<typeof importSession>>;
  if (path === '-') {
    result = await importSession(store, context.io.stdin as Readable & AsyncIterable<Buffer>, options);
  } else {
    const file = resolve(context.io.cwd, path);
    if (!existsSync(file)) throw new UsageError(`no file ${path}; give the path of a JSONL export, or - for standard input`);
    result = await importSessionFile(store, file, options);
  }
  if (context.json) {
    context.printJson(result);
    return 0;
  }
  if (result.tornLine !== null) {
    context.io.stderr.write(
      `shadowlog: warning: line ${result.tornLine.line} (the last, ${result.tornLine.bytes} bytes) was cut short and was skipped; every event before it was imported\n`,
    );
  }
  if (result.trailer === 'missing') {
    context.io.stderr.write(
      'shadowlog: warning: no trailer: completeness cannot be checked (a version 1 export, written before exports counted their events)\n',
    );
  }
  context.print(
    result.alreadyPresent
      ? `${result.sessionId} is already in ${store.location} with the same ${result.events} events; nothing written`
      : `imported ${result.events} events as ${result.sessionId} into ${store.location}; hash chain and surface verified${result.trailer === 'ok' ? ', trailer matched' : ''}`,
  );
  return 0;
}
