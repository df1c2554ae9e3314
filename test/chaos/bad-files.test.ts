// Files a user gives shadowlog to read, and the store file it creates (issue 25, items 7 and 12):
// a device (/dev/zero), a FIFO or a line longer than any session's is a typed one-line error in
// bounded memory and time; a file that mixes two harnesses' formats is refused; a failed import
// leaves no store file behind; a store is created only as a file in a directory that exists (the
// default's .shadowlog excepted); JSON files on the command line refuse duplicate keys, and price
// files refuse prices no model has.

import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPACTION_EVENT_TYPES } from '../../src/compaction/index.js';
import { importFiles } from '../../src/importers/import-files.js';
import { readImportInputs } from '../../src/importers/import-inputs.js';
import { EventTypeRegistry } from '../../src/log/event-types.js';
import { parsePriceTable } from '../../src/meter/prices.js';
import { LineTooLongError } from '../../src/store/file-errors.js';
import { collectInputBytes, DEFAULT_MAX_LINE_BYTES, readInputFile } from '../../src/store/input-file.js';
import { exportSession, readJsonl } from '../../src/store/jsonl.js';
import { MemoryLogStore } from '../../src/store/memory/memory-store.js';
import { SessionLog } from '../../src/store/session-log.js';
import { openSqliteStore } from '../../src/store/sqlite/index.js';
import { type CliResult, createCliWorkspace } from '../support/cli.js';
import { CORPUS_FILES, corpusFile } from '../support/corpus-sessions.js';
import { drafts, fixedNow, sampleDrafts } from '../support/events.js';
import { expectCleanRefusal } from './support/cli-checks.js';
import { type ChildCliResult, runCliChild } from './support/cli-child.js';

const SAMPLE = resolve(import.meta.dirname, '../../examples/sample-session.jsonl');
const OPEN_STORE = resolve(import.meta.dirname, 'fixtures/open-sqlite-store.ts');
const hasProc = existsSync('/proc/self');

/** Zeros without end, in 1 MiB chunks: what /dev/zero gives a reader that never stops. */
async function* zeros(): AsyncGenerator<Buffer> {
  const chunk = Buffer.alloc(1024 * 1024);
  for (;;) yield chunk;
}

describe('input files that are not session files', () => {
  const workspace = createCliWorkspace();
  const store = join(workspace.cwd, 'store.db');
  const storeArgs = ['--store', `sqlite:${store}`];
  afterAll(() => workspace.cleanup());

  it('/dev/zero, a FIFO and a directory are refused before a byte is read, by import, verify --file, --prices and --compaction-config', async () => {
    const fifo = join(workspace.cwd, 'a-fifo.jsonl');
    execFileSync('mkfifo', [fifo]);
    const checks: Array<[string[], string]> = [];
    const refused = (args: string[], result: ChildCliResult | CliResult, message: string) => {
      const what = args.slice(2).join(' ');
      if ('timedOut' in result) expect(result.timedOut, `${what}: still running after ${result.milliseconds} ms`).toBe(false);
      expect(expectCleanRefusal(result, what, [1]), what).toBe('NOT_A_FILE');
      expect(result.stderr, what).toContain(message);
    };
    const fifoMessage = 'a FIFO (named pipe), not a regular file';
    const zeroMessage = '/dev/zero is a character device, not a regular file';
    // In children with a deadline, one at a time: read in this process, /dev/zero would fill its
    // memory and the FIFO would wait for a writer forever.
    checks.push([[...storeArgs, 'import', fifo], fifoMessage]);
    if (existsSync('/dev/zero')) {
      checks.push(
        [[...storeArgs, 'import', '/dev/zero'], zeroMessage],
        [[...storeArgs, 'verify', '--file', '/dev/zero'], zeroMessage],
        [[...storeArgs, 'tune', SAMPLE, '--prices', '/dev/zero'], zeroMessage],
        [[...storeArgs, 'meter', '/dev/zero'], zeroMessage],
        // Refused while the options are read: no request is made (the base URL is never reached).
        [
          [
            ...storeArgs,
            'chat',
            '--provider',
            'openai',
            '--base-url',
            'http://127.0.0.1:9/v1',
            '--model',
            'm',
            '--model-limits',
            '/dev/zero',
          ],
          zeroMessage,
        ],
      );
    }
    for (const [args, message] of checks) refused(args, await runCliChild(args, 60_000), message);
    // The rest in this process: the same readers, already shown not to block.
    const inProcess: Array<[string[], string]> = [
      [[...storeArgs, 'verify', '--file', fifo], fifoMessage],
      [[...storeArgs, 'tune', SAMPLE, '--prices', fifo], fifoMessage],
      [[...storeArgs, 'compact', 'x', '--window', '100000', '--compaction-config', fifo], fifoMessage],
      [[...storeArgs, 'compact', 'x', '--window', '100000', '--compaction-config', workspace.cwd], 'is a directory, not a file'],
    ];
    for (const [args, message] of inProcess) refused(args, await workspace.run(args), message);
    expect(existsSync(store)).toBe(false);
  }, 300_000);

  it('a line past the limit is LINE_TOO_LONG naming the file and line, counted before it is read whole (library, small limit)', async () => {
    const path = join(workspace.cwd, 'long-line.jsonl');
    writeFileSync(path, `{"type":"session","id":"x"}\n{"a":"${'x'.repeat(5000)}"}\n`);
    const inputs = readImportInputs([path], workspace.cwd, { maxLineBytes: 4096 });
    await expect(inputs).rejects.toBeInstanceOf(LineTooLongError);
    await expect(inputs).rejects.toMatchObject({ code: 'LINE_TOO_LONG', path, line: 2, maxLineBytes: 4096 });
    // Bytes given to importFiles directly are held to the same limit, before any string is made.
    const bytes = readFileSync(path);
    const direct = importFiles(new MemoryLogStore(), [{ path: 'given.jsonl', bytes }], {
      format: 'auto',
      registry: new EventTypeRegistry(COMPACTION_EVENT_TYPES),
      maxLineBytes: 4096,
    });
    await expect(direct).rejects.toMatchObject({ code: 'LINE_TOO_LONG', path: 'given.jsonl', line: 2 });
    await expect(
      importFiles(new MemoryLogStore(), [{ path: 'first.jsonl', bytes: Buffer.from(`{"format":"shadowlog"${' '.repeat(5000)}}\n`) }], {
        format: 'auto',
        registry: new EventTypeRegistry(COMPACTION_EVENT_TYPES),
        maxLineBytes: 4096,
      }),
    ).rejects.toMatchObject({ code: 'LINE_TOO_LONG', line: 1 });
    // A stream without a newline ends at the limit: /dev/zero piped in, or a file read as chunks.
    await expect(collectInputBytes(zeros(), '-', { maxLineBytes: 8 * 1024 * 1024 })).rejects.toMatchObject({
      code: 'LINE_TOO_LONG',
      line: 1,
    });
    await expect(readJsonl(zeros(), { maxLineBytes: 8 * 1024 * 1024 })).rejects.toMatchObject({ code: 'LINE_TOO_LONG', line: 1 });
    const chunks = readInputFile(path, { maxLineBytes: 4096 });
    await expect(
      (async () => {
        for await (const _ of chunks);
      })(),
    ).rejects.toMatchObject({ code: 'LINE_TOO_LONG', path, line: 2 });
  });

  it('import of a 600 MB line (a sparse file) is LINE_TOO_LONG at the default limit, in bounded time', async () => {
    const path = join(workspace.cwd, 'sparse.jsonl');
    const descriptor = openSync(path, 'w');
    closeSync(descriptor);
    // Sparse: 600 MB of zeros and no newline, taking no disk; the string V8 cannot build.
    execFileSync('truncate', ['-s', '600M', path]);
    const result = await runCliChild([...storeArgs, 'import', path], 60_000);
    rmSync(path);
    expect(result.timedOut, `still running after ${result.milliseconds} ms`).toBe(false);
    expect(expectCleanRefusal(result, 'import of a 600 MB line', [1])).toBe('LINE_TOO_LONG');
    expect(result.stderr).toContain(`${path} line 1 is longer than ${DEFAULT_MAX_LINE_BYTES.toLocaleString('en-US')} bytes (256 MiB)`);
    expect(existsSync(store)).toBe(false);
  }, 70_000);

  it('standard input without a newline is LINE_TOO_LONG too, naming standard input', async () => {
    const stdin = new PassThrough();
    const fed = (async () => {
      const chunk = Buffer.alloc(1024 * 1024);
      for (let written = 0; written <= DEFAULT_MAX_LINE_BYTES; written += chunk.length) {
        if (!stdin.write(chunk)) await new Promise((done) => stdin.once('drain', done));
        if (stdin.destroyed) return;
      }
      stdin.end();
    })();
    const bytes = collectInputBytes(stdin, '-');
    await expect(bytes).rejects.toMatchObject({ code: 'LINE_TOO_LONG', line: 1 });
    await expect(bytes).rejects.toThrow(/^standard input, line 1 is longer than/);
    stdin.destroy();
    await fed;
  }, 30_000);
});

describe('a file of two formats', () => {
  const workspace = createCliWorkspace();
  afterAll(() => workspace.cleanup());

  it('a Claude Code line followed by a Codex rollout is MIXED_IMPORT_FORMATS, auto or named, and nothing is stored', async () => {
    const claude = readFileSync(corpusFile(CORPUS_FILES.claudeSmall), 'utf8').split('\n')[0];
    const codex = readFileSync(corpusFile(CORPUS_FILES.codexOld), 'utf8');
    writeFileSync(join(workspace.cwd, 'mixed.jsonl'), `${claude}\n${codex}`);
    for (const format of ['auto', 'claude-code']) {
      const result = await workspace.run(['import', 'mixed.jsonl', '--format', format]);
      expect(expectCleanRefusal(result, `import --format ${format} mixed.jsonl`, [1])).toBe('MIXED_IMPORT_FORMATS');
      expect(result.stderr).toMatch(
        /mixed\.jsonl mixes two formats: line 1 is a Claude Code user record .*, but line 2 is a Codex session_meta record .*; .*nothing was imported/,
      );
    }
    expect(existsSync(join(workspace.cwd, '.shadowlog'))).toBe(false);
    // Each file alone imports as before.
    for (const file of [CORPUS_FILES.claudeSmall, CORPUS_FILES.codexOld]) {
      const result = await workspace.run(['import', corpusFile(file)]);
      expect(result.stderr, file).toBe('');
      expect(result.code, file).toBe(0);
    }
  }, 60_000);
});

describe('the store file a command creates', () => {
  const workspace = createCliWorkspace();
  afterAll(() => workspace.cleanup());
  const at = (name: string) => join(workspace.cwd, name);

  /** An export of `events` events whose line `badLine` is not JSON: refused only after the first batches were read. */
  let damagedLate: string;
  beforeAll(async () => {
    const memory = new MemoryLogStore();
    const log = await SessionLog.create(memory, 'long-session', { now: fixedNow });
    await log.append(sampleDrafts().slice(1));
    for (let index = 0; index < 1500; index++) await log.append([drafts.user(`message ${index}`)]);
    const output = new PassThrough();
    const chunks: Buffer[] = [];
    output.on('data', (chunk: Buffer) => chunks.push(chunk));
    await exportSession(memory, 'long-session', output);
    const lines = Buffer.concat(chunks).toString('utf8').split('\n');
    lines[1400] = '{"not": "an event", ';
    damagedLate = lines.join('\n');
  });

  it('a failed import leaves no store file: unknown format, a line damaged after 1,400 events, a missing trailer', async () => {
    writeFileSync(at('unknown.jsonl'), '{"a":1}\n');
    writeFileSync(at('damaged-late.jsonl'), damagedLate);
    writeFileSync(at('no-trailer.jsonl'), readFileSync(SAMPLE, 'utf8').trimEnd().split('\n').slice(0, -1).join('\n').concat('\n'));
    for (const [file, code] of [
      ['unknown.jsonl', 'UNKNOWN_IMPORT_FORMAT'],
      ['damaged-late.jsonl', 'CORRUPT_LOG'],
      ['no-trailer.jsonl', 'CORRUPT_LOG'],
    ]) {
      for (const store of [[], ['--store', `sqlite:${at('named.db')}`]]) {
        const result = await workspace.run([...store, 'import', file as string]);
        expect(expectCleanRefusal(result, `import ${file}`, [1]), file).toBe(code);
      }
    }
    // A compact of a session a new store cannot hold: refused, and no store either.
    const compact = await workspace.run(['--store', `sqlite:${at('named.db')}`, 'compact', 'nothing-here', '--window', '100000']);
    expect(compact.code).not.toBe(0);
    expect(existsSync(at('named.db'))).toBe(false);
    expect(existsSync(at('.shadowlog'))).toBe(false);
  }, 60_000);

  it('a successful import creates the store: the default one with its .shadowlog directory, a named one in its directory', async () => {
    expect((await workspace.run(['import', SAMPLE])).code).toBe(0);
    expect(existsSync(at('.shadowlog/shadowlog.db'))).toBe(true);
    expect((await workspace.run(['--store', `sqlite:${at('named.db')}`, 'import', SAMPLE])).code).toBe(0);
    expect(existsSync(at('named.db'))).toBe(true);
    const sessions = await workspace.run(['--json', '--store', `sqlite:${at('named.db')}`, 'sessions']);
    expect(JSON.parse(sessions.stdout).map((session: { id: string }) => session.id)).toEqual(['sample-fix-parser']);
  });

  it('a named store in a missing directory is STORE_NOT_FOUND, creating no directory (copy --to, import)', async () => {
    const root = `/shadowlog-test-${process.pid}-${Date.now()}`;
    try {
      const copy = await workspace.run(['copy', '--from', `sqlite:${at('named.db')}`, '--to', `sqlite:${root}/dir/x.db`, '--all']);
      expect(expectCleanRefusal(copy, 'copy --to a missing directory', [1])).toBe('STORE_NOT_FOUND');
      expect(copy.stderr).toContain(`there is no directory ${root}/dir to create the store in`);
      const imported = await workspace.run(['--store', `sqlite:${at('no/such/x.db')}`, 'import', SAMPLE]);
      expect(expectCleanRefusal(imported, 'import into a missing directory', [1])).toBe('STORE_NOT_FOUND');
      expect(existsSync(root)).toBe(false);
      expect(existsSync(at('no'))).toBe(false);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('the library makes one directory level at most, and under /proc answers at once', async () => {
    mkdirSync(at('library'));
    await (await openSqliteStore(at('library/one/store.db'))).close();
    expect(existsSync(at('library/one/store.db'))).toBe(true);
    await expect(openSqliteStore(at('library/two/levels/store.db'))).rejects.toMatchObject({ code: 'STORE_NOT_FOUND' });
    expect(existsSync(at('library/two'))).toBe(false);
    if (!hasProc) return;
    const results = await Promise.all([
      runCliChild([`/proc/shadowlog-${process.pid}/store.db`], 30_000, OPEN_STORE),
      runCliChild(['copy', '--from', `sqlite:${at('named.db')}`, '--to', `sqlite:/proc/shadowlog-${process.pid}/x.db`, '--all'], 30_000),
    ]);
    for (const result of results) {
      expect(result.timedOut, `still running after ${result.milliseconds} ms`).toBe(false);
      expect(expectCleanRefusal(result, 'a store under /proc', [1])).toBe('STORE_NOT_FOUND');
    }
  }, 40_000);
});

describe('JSON files named on the command line', () => {
  const workspace = createCliWorkspace();
  afterAll(() => workspace.cleanup());
  const tune = (prices: object | string) => {
    writeFileSync(join(workspace.cwd, 'prices.json'), typeof prices === 'string' ? prices : JSON.stringify(prices));
    return workspace.run(['tune', SAMPLE, '--prices', 'prices.json']);
  };
  const price = (input: number) => ({ input, cachedInput: 0.1, output: 2, cacheRule: 'openai' });

  it('a price file with a key twice is refused, naming the key', async () => {
    const duplicated = `{"models":{"gpt-5":${JSON.stringify(price(1))},"gpt-5":${JSON.stringify(price(2))}}}`;
    const result = await tune(duplicated);
    expect(expectCleanRefusal(result, 'prices with a duplicate key', [2])).toBe('USAGE');
    expect(result.stderr).toContain('prices.json: the key "gpt-5" appears twice in $.models');
    writeFileSync(join(workspace.cwd, 'config.json'), '{"thresholdRatio":0.5,"thresholdRatio":0.9}');
    const config = await workspace.run(['compact', 'any-session', '--window', '100000', '--compaction-config', 'config.json']);
    expect(expectCleanRefusal(config, 'a policy file with a duplicate key', [2])).toBe('USAGE');
    expect(config.stderr).toContain('config.json: the key "thresholdRatio" appears twice in the top-level object');
  });

  it('a price no model has (1.7e308) is refused, so no cost can reach Infinity', async () => {
    const result = await tune({ models: { 'gpt-5': price(1.7e308) } });
    expect(expectCleanRefusal(result, 'a price of 1.7e308', [2])).toBe('INVALID_CONFIG');
    expect(result.stderr).toContain('models.gpt-5.input must be dollars per million tokens, at most 1,000,000');
    expect(result.stdout).not.toContain('Infinity');
    expect(() => parsePriceTable({ models: { m: price(1_000_001) } }, 'p.json')).toThrow(/at most 1,000,000/);
    expect(parsePriceTable({ models: { m: price(1_000_000) } }, 'p.json').models.m?.input).toBe(1_000_000);
    const fine = await tune({ models: { 'gpt-5': price(1.25) } });
    expect(fine.stderr).toBe('');
    expect(fine.code).toBe(0);
  });
});
