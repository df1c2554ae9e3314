// Reading a file shadowlog was given (an export to import or verify) as a stream of chunks, with
// every failure of the file system (missing, a directory, unreadable) a typed FileError.

import { open } from 'node:fs/promises';
import { inputFileError } from './file-errors.js';

export async function* readInputFile(path: string): AsyncGenerator<Buffer> {
  const mapped = (error: unknown) => inputFileError(error, path) ?? error;
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    throw mapped(error);
  }
  let failed = false;
  try {
    // Opening a directory for reading succeeds on Linux; reading it would fail with EISDIR.
    if ((await handle.stat()).isDirectory()) throw Object.assign(new Error(`EISDIR: ${path} is a directory`), { code: 'EISDIR' });
    for await (const chunk of handle.createReadStream({ autoClose: false })) yield chunk as Buffer;
  } catch (error) {
    failed = true;
    throw mapped(error);
  } finally {
    // After a failure, the read's own error is the one to report; closing a file opened only
    // for reading cannot lose data.
    await handle.close().catch((error: unknown) => {
      if (!failed) throw mapped(error);
    });
  }
}
