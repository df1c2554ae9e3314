// `shadowlog export <id>` and `shadowlog import <file>`: JSONL out and in.

import { createWriteStream, existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { SessionNotFoundError } from '../../log/errors.js';
import { assertSessionId } from '../../log/session-id.js';
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
  const file = createWriteStream(resolve(context.io.cwd, outputPath), { flags: 'wx' });
  const count = await exportSession(store, sessionId, file);
  file.end();
  await finished(file);
  if (context.json) context.printJson({ sessionId, events: count, file: resolve(context.io.cwd, outputPath) });
  else context.print(`exported ${count} events of ${sessionId} to ${outputPath}`);
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
  context.print(
    result.alreadyPresent
      ? `${result.sessionId} is already in ${store.location} with the same ${result.events} events; nothing written`
      : `imported ${result.events} events as ${result.sessionId} into ${store.location}; hash chain and surface verified`,
  );
  return 0;
}
