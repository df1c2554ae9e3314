// Bad input everywhere a user can type or send (issue 6, item 4), table-driven: session ids,
// configuration, JSONL files, huge and multi-script tool results, and provider answers that are
// cut short, not JSON, or never end. Each gets a typed error (on the CLI: exit 1 or 2 and one
// line `shadowlog: CODE: message`) or a correct result; never a crash, a hang, or a partial write.

import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCompactionConfig } from '../../src/compaction/policy.js';
import { LONGEST_PRUNE_MARKER_LENGTH, PRUNER_DEFAULTS, type PrunerOptions, parsePrunerConfig } from '../../src/compaction/pruner-config.js';
import { codePointLength, createToolResultPruner } from '../../src/compaction/tool-result-pruner.js';
import { ConfigError, CorruptLogError, InvalidSessionIdError, ShadowlogError } from '../../src/log/errors.js';
import type { LogEvent } from '../../src/log/event.js';
import { chars4Estimator } from '../../src/meter/chars4-estimator.js';
import { SurfaceMeter } from '../../src/meter/measure.js';
import { scriptAwareEstimator } from '../../src/meter/script-aware.js';
import { createAnthropicMessagesModel } from '../../src/providers/anthropic-messages/anthropic-messages-model.js';
import type { Timeouts } from '../../src/providers/http.js';
import type { LanguageModel } from '../../src/providers/language-model.js';
import { createOpenAIChatModel } from '../../src/providers/openai-chat/openai-chat-model.js';
import { importSession } from '../../src/store/jsonl.js';
import type { LogStore } from '../../src/store/log-store.js';
import { MemoryLogStore } from '../../src/store/memory/memory-store.js';
import { SessionLog } from '../../src/store/session-log.js';
import { openSqliteStore } from '../../src/store/sqlite/index.js';
import { createCliWorkspace } from '../support/cli.js';
import { drafts, fixedNow, sampleDrafts } from '../support/events.js';
import { type FakeProviderServer, readFixtureChunks, startFakeProviderServer } from '../support/fake-provider-server.js';
import { expectCleanRefusal, hasBrokenSurrogate } from './support/cli-checks.js';
import { recordFigures } from './support/figures.js';

const tried: Record<string, number> = {};
const count = (group: string, n = 1) => {
  tried[group] = (tried[group] ?? 0) + n;
};

afterAll(() => {
  const total = Object.values(tried).reduce((sum, n) => sum + n, 0);
  recordFigures('bad-input', { badInputs: total, byGroup: tried });
  console.log(`bad inputs tried: ${total} ${JSON.stringify(tried)}`);
});

const BAD_IDS: ReadonlyArray<[string, string]> = [
  ['path traversal', '../x'],
  ['absolute path', '/etc/passwd'],
  ['SQL metacharacters', "x'; DROP TABLE events;--"],
  ['empty', ''],
  ['10,000 characters', 'a'.repeat(10_000)],
  ['129 characters', 'a'.repeat(129)],
  ['unicode', 'séance-会话-🦀'],
  ['a NUL byte', 'x\u0000y'],
  ['a newline', 'x\ny'],
  ['a leading dot', '.hidden'],
];

const GOOD = 'good-session';

async function storeState(store: LogStore): Promise<string> {
  const sessions = await store.listSessions();
  const events: LogEvent[] = [];
  for await (const page of store.read(GOOD)) events.push(...page);
  return JSON.stringify({ sessions: sessions.map(({ id, events: n }) => ({ id, n })), head: await store.head(GOOD), events });
}

describe('bad session ids', () => {
  const workspace = createCliWorkspace();
  const storeSpec = `sqlite:${join(workspace.cwd, 'store.db')}`;
  let before: string;

  beforeAll(async () => {
    const store = await openSqliteStore(join(workspace.cwd, 'store.db'));
    const log = await SessionLog.create(store, GOOD, { now: fixedNow });
    await log.append(sampleDrafts().slice(1));
    before = await storeState(store);
    await store.close();
  });
  afterAll(() => workspace.cleanup());

  const commands: ReadonlyArray<[string, (id: string) => string[]]> = [
    ['show', (id) => ['show', id]],
    ['show --surface', (id) => ['show', id, '--surface']],
    ['origins', (id) => ['origins', id, '0']],
    ['verify', (id) => ['verify', id]],
    ['export', (id) => ['export', id]],
    ['replay', (id) => ['replay', id, '--turn', '1']],
    ['stats', (id) => ['stats', id]],
    ['compact', (id) => ['compact', id, '--window', '100000']],
    ['unlock', (id) => ['unlock', id, '--reason', 'test']],
    ['import --as', (id) => ['import', 'exported.jsonl', '--as', id]],
  ];

  it('every command that takes an id refuses each bad one with exit 2 and one INVALID_SESSION_ID line, writing nothing', async () => {
    const exported = await workspace.run(['--store', storeSpec, 'export', GOOD]);
    expect(exported.code, exported.stderr).toBe(0);
    writeFileSync(join(workspace.cwd, 'exported.jsonl'), exported.stdout);
    // SQLite's -wal and -shm side files come and go with connections (a read-only one leaves
    // them, a writer's close removes them); they hold no events. Every other file must stay.
    const listing = () =>
      readdirSync(workspace.cwd)
        .filter((name) => !/\.db-(wal|shm)$/.test(name))
        .sort();
    const files = listing();
    for (const [command, args] of commands) {
      for (const [label, id] of BAD_IDS) {
        for (const json of [false, true]) {
          const result = await workspace.run(['--store', storeSpec, ...(json ? ['--json'] : []), ...args(id)]);
          if (json) {
            expect(result.code, `${command} ${label} --json: ${result.stderr}`).toBe(2);
            const lines = result.stderr.trim().split('\n');
            expect(lines).toHaveLength(1);
            expect((JSON.parse(lines[0] as string) as { error: { code: string } }).error.code).toBe('INVALID_SESSION_ID');
          } else {
            const code = expectCleanRefusal(result, `${command} with ${label}`, [2]);
            expect(code, `${command} with ${label}`).toBe('INVALID_SESSION_ID');
          }
          expect(result.stdout, `${command} with ${label}`).toBe('');
          count('CLI session ids');
        }
      }
    }
    expect(listing()).toEqual(files);
    const store = await openSqliteStore(join(workspace.cwd, 'store.db'));
    try {
      expect(await storeState(store)).toBe(before);
    } finally {
      await store.close();
    }
  }, 60_000);

  it('the public API refuses each bad id with InvalidSessionIdError before touching the store', async () => {
    const sqlite = await openSqliteStore(join(workspace.cwd, 'store.db'));
    const memory = new MemoryLogStore();
    await (await SessionLog.create(memory, GOOD, { now: fixedNow })).append(sampleDrafts().slice(1));
    const events = [...(await collect(memory, GOOD))];
    try {
      for (const store of [memory, sqlite] as LogStore[]) {
        const state = await storeState(store);
        for (const [label, id] of BAD_IDS) {
          const calls: Array<[string, () => Promise<unknown>]> = [
            ['SessionLog.create', () => SessionLog.create(store, id)],
            ['SessionLog.open', () => SessionLog.open(store, id)],
            ['store.head', () => store.head(id)],
            ['store.read', () => collect(store, id)],
            ['store.readEvent', () => store.readEvent(id, 0)],
            ['store.append', () => store.append(id, events.slice(0, 1), { expectedSeq: 0 })],
            ['store.acquireOwnership', () => store.acquireOwnership(id)],
            ['importSession --as', () => importSession(store, Readable.from([Buffer.from(jsonlOf(GOOD, events))]), { sessionId: id })],
          ];
          for (const [name, call] of calls) {
            await expect(call(), `${name} with ${label}`).rejects.toBeInstanceOf(InvalidSessionIdError);
            count('API session ids');
          }
        }
        expect(await storeState(store)).toBe(state);
      }
    } finally {
      await sqlite.close();
    }
  });
});

async function collect(store: LogStore, sessionId: string): Promise<LogEvent[]> {
  const events: LogEvent[] = [];
  for await (const page of store.read(sessionId)) events.push(...page);
  return events;
}

function jsonlOf(sessionId: string, events: readonly LogEvent[]): string {
  return `${[JSON.stringify({ format: 'shadowlog', version: 1, sessionId }), ...events.map((event) => JSON.stringify(event))].join('\n')}\n`;
}

describe('bad configuration', () => {
  const compactionConfigs: ReadonlyArray<[string, unknown]> = [
    ['not an object', 'fast'],
    ['an array', [0.8]],
    ['null', null],
    ['unknown key', { thresholdRatio: 0.8, treshold: 0.7 }],
    ['alias key', { threshold: 0.8 }],
    ['ratio above 1', { thresholdRatio: 1.5 }],
    ['ratio 0', { thresholdRatio: 0 }],
    ['negative ratio', { thresholdRatio: -0.1 }],
    ['NaN ratio', { thresholdRatio: Number.NaN }],
    ['infinite headroom', { headroomTokens: Number.POSITIVE_INFINITY }],
    ['string number', { thresholdRatio: '0.8' }],
    ['fractional tokens', { headroomTokens: 10.5 }],
    ['negative tokens', { retainTokens: -5 }],
    ['retain ratio 1', { retainRatio: 1 }],
    ['both retains', { retainRatio: 0.1, retainTokens: 1000 }],
    ['unknown estimator', { estimator: 'chars5' }],
    ['bad model policies', { modelPolicies: [1, 2] }],
    ['unknown key in a model policy', { modelPolicies: { 'gpt-4o': { ratio: 0.5 } } }],
    ['unknown summarizer kind', { summarizer: { kind: 'magic' } }],
    ['prototype key', JSON.parse('{"__proto__": {"thresholdRatio": 0.5}, "thresholdRatio": 0.8, "x": 1}')],
  ];
  const prunerConfigs: ReadonlyArray<[string, unknown]> = [
    ['not an object', 42],
    ['unknown key', { thresholdChars: 9000, maxChars: 10 }],
    ['alias', { threshold: 9000 }],
    ['zero', { headChars: 0 }],
    ['negative', { tailChars: -1 }],
    ['fraction', { thresholdChars: 8192.5 }],
    ['string', { thresholdChars: '8192' }],
    ['head + tail over threshold', { thresholdChars: 100, headChars: 60, tailChars: 60 }],
    ['huge', { thresholdChars: 1e300 }],
    ['NaN', { headChars: Number.NaN }],
  ];

  it('parseCompactionConfig refuses each with a ConfigError', () => {
    for (const [label, config] of compactionConfigs) {
      let thrown: unknown;
      try {
        parseCompactionConfig(config);
      } catch (error) {
        thrown = error;
      }
      expect(thrown, label).toBeInstanceOf(ConfigError);
      expect((thrown as ConfigError).message.length, label).toBeGreaterThan(20);
      count('compaction config');
    }
  });

  it('the pruner refuses each with a ConfigError at construction', () => {
    for (const [label, config] of prunerConfigs) {
      expect(() => parsePrunerConfig(config), label).toThrow(ConfigError);
      // A program without types (or one reading JSON unchecked) can still pass anything.
      expect(() => createToolResultPruner(config as PrunerOptions), label).toThrow(ConfigError);
      count('pruner config', 2);
    }
  });

  it('the CLI refuses bad policy flags and configuration with one typed line', async () => {
    const workspace = createCliWorkspace();
    try {
      const store = await openSqliteStore(join(workspace.cwd, 'store.db'));
      await (await SessionLog.create(store, GOOD, { now: fixedNow })).append(sampleDrafts().slice(1));
      const before = await storeState(store);
      await store.close();
      const storeArgs = ['--store', `sqlite:${join(workspace.cwd, 'store.db')}`];
      const flagSets: string[][] = [
        ['--window', 'abc'],
        ['--window', '0'],
        ['--window', '-5'],
        ['--window', ''],
        ['--window', '100000', '--threshold-ratio', '2'],
        ['--window', '100000', '--threshold-ratio', 'abc'],
        ['--window', '100000', '--threshold-ratio', '0'],
        ['--window', '100000', '--retain-ratio', '-1'],
        ['--window', '100000', '--retain-ratio', '0.1', '--retain-tokens', '100'],
        ['--window', '100000', '--headroom-tokens', '1.5'],
        ['--window', '100000', '--headroom-tokens', 'lots'],
        ['--window', '100000', '--reserve', '-1'],
        ['--window', '100000', '--reserve', '200000'],
        ['--window', '100000', '--unknown-flag', '1'],
        ['--threshold-ratio', '0.5'],
      ];
      for (const flags of flagSets) {
        for (const command of [['policy'], ['compact', GOOD]]) {
          if (command[0] === 'compact' && !flags.includes('--window')) continue;
          const result = await workspace.run([...storeArgs, ...command, ...flags]);
          expectCleanRefusal(result, `${command.join(' ')} ${flags.join(' ')}`);
          count('CLI config flags');
        }
      }
      for (const [label, config] of compactionConfigs.filter(([label]) => label !== 'null').slice(0, 12)) {
        writeFileSync(join(workspace.cwd, 'config.json'), JSON.stringify(config) ?? 'null');
        const result = await workspace.run([
          'chat',
          '--provider',
          'openai',
          '--model',
          'gpt-4o',
          '--compaction-config',
          'config.json',
          '--base-url',
          'http://127.0.0.1:9/v1',
        ]);
        expectCleanRefusal(result, `chat --compaction-config ${label}`);
        count('CLI config file');
      }
      writeFileSync(join(workspace.cwd, 'config.json'), '{"thresholdRatio": 0.8,');
      expectCleanRefusal(
        await workspace.run(['chat', '--provider', 'openai', '--model', 'gpt-4o', '--compaction-config', 'config.json']),
        'a config file that is not JSON',
        [2],
      );
      count('CLI config file');
      // The refused chats wrote nothing: the default store was never even created.
      expect(existsSync(join(workspace.cwd, '.shadowlog'))).toBe(false);
      const after = await openSqliteStore(join(workspace.cwd, 'store.db'));
      expect(await storeState(after)).toBe(before);
      await after.close();
    } finally {
      workspace.cleanup();
    }
  }, 60_000);

  // A regression test: chat once read `options.compactionConfig ?? {}`, so a configuration
  // file that held `null` silently meant the defaults.
  it('chat refuses a --compaction-config file that holds null', async () => {
    const workspace = createCliWorkspace();
    try {
      writeFileSync(join(workspace.cwd, 'config.json'), 'null');
      const result = await workspace.run([
        'chat',
        '--provider',
        'openai',
        '--model',
        'gpt-4o',
        '--compaction-config',
        'config.json',
        '--base-url',
        'http://127.0.0.1:9/v1',
      ]);
      count('CLI config file');
      expectCleanRefusal(result, 'chat --compaction-config holding null');
    } finally {
      workspace.cleanup();
    }
  });
});

describe('malformed JSONL on import', () => {
  let good: string;
  let lines: string[];

  beforeAll(async () => {
    const store = new MemoryLogStore();
    const log = await SessionLog.create(store, GOOD, { now: fixedNow });
    await log.append(sampleDrafts().slice(1));
    await log.append([drafts.user('Merci, 谢谢 👍🏽')]);
    good = jsonlOf(GOOD, await collect(store, GOOD));
    lines = good.trimEnd().split('\n');
  });

  const swap = (index: number, replacement: string | Buffer): Buffer => {
    const parts: Buffer[] = lines.map((line) => Buffer.from(line));
    parts[index] = typeof replacement === 'string' ? Buffer.from(replacement) : replacement;
    return Buffer.concat(parts.flatMap((part) => [part, Buffer.from('\n')]));
  };

  /** [label, file bytes, the line the error must name (undefined: any typed error)]. */
  const damaged = (): Array<[string, Buffer, number | undefined]> => [
    ['a middle line cut short', swap(3, (lines[3] as string).slice(0, 30)), 4],
    ['a middle line that is not JSON', swap(4, 'not json at all'), 5],
    ['an empty middle line', swap(2, ''), 3],
    [
      'non-UTF-8 bytes in a line',
      swap(
        5,
        Buffer.concat([
          Buffer.from((lines[5] as string).slice(0, 20)),
          Buffer.from([0xff, 0xfe, 0xc3]),
          Buffer.from((lines[5] as string).slice(20)),
        ]),
      ),
      6,
    ],
    [
      'a lone continuation byte',
      swap(
        3,
        Buffer.concat([Buffer.from((lines[3] as string).slice(0, -2)), Buffer.from([0x80]), Buffer.from((lines[3] as string).slice(-2))]),
      ),
      4,
    ],
    [
      'an overlong UTF-8 encoding',
      swap(
        3,
        Buffer.concat([
          Buffer.from((lines[3] as string).slice(0, -2)),
          Buffer.from([0xc0, 0xaf]),
          Buffer.from((lines[3] as string).slice(-2)),
        ]),
      ),
      4,
    ],
    ['a JSON array line', swap(2, '[1,2,3]'), 3],
    ['a JSON number line', swap(2, '42'), 3],
    ['a line with a NUL byte', swap(4, `${(lines[4] as string).slice(0, 10)}\u0000${(lines[4] as string).slice(10)}`), 5],
    ['a duplicated event line', Buffer.from(`${[...lines.slice(0, 4), lines[3], ...lines.slice(4)].join('\n')}\n`), undefined],
    ['a missing event line', Buffer.from(`${[...lines.slice(0, 3), ...lines.slice(4)].join('\n')}\n`), undefined],
    ['a changed character in an event', swap(4, (lines[4] as string).replace('"text":"', '"text":"X')), undefined],
    ['a header that is not JSON', swap(0, 'shadowlog v1'), 1],
    ['a header of another format', swap(0, JSON.stringify({ format: 'pi', version: 1, sessionId: GOOD })), 1],
    ['a header of a future version', swap(0, JSON.stringify({ format: 'shadowlog', version: 99, sessionId: GOOD })), undefined],
    ['a header with a traversal id', swap(0, JSON.stringify({ format: 'shadowlog', version: 1, sessionId: '../etc' })), undefined],
    [
      'a header with an SQL id',
      swap(0, JSON.stringify({ format: 'shadowlog', version: 1, sessionId: "x'; DROP TABLE events;--" })),
      undefined,
    ],
    ['an empty file', Buffer.alloc(0), undefined],
    ['only newlines', Buffer.from('\n\n\n'), undefined],
    ['binary noise', Buffer.from(Array.from({ length: 4096 }, (_, index) => (index * 7919) % 256)), undefined],
  ];

  it('importSession refuses each with a typed error naming the line, and stores nothing', async () => {
    for (const [label, bytes, line] of damaged()) {
      const store = new MemoryLogStore();
      let thrown: unknown;
      try {
        await importSession(store, Readable.from([bytes]));
      } catch (error) {
        thrown = error;
      }
      expect(ShadowlogError.isInstance(thrown), `${label}: ${String(thrown)}`).toBe(true);
      if (line !== undefined) {
        expect(thrown, label).toBeInstanceOf(CorruptLogError);
        expect((thrown as CorruptLogError).line, `${label}: ${(thrown as Error).message}`).toBe(line);
      }
      expect(await store.listSessions(), label).toEqual([]);
      count('JSONL files');
    }
  });

  it('the CLI import refuses each with one typed line and writes no session', async () => {
    const workspace = createCliWorkspace();
    try {
      for (const [label, bytes] of damaged()) {
        writeFileSync(join(workspace.cwd, 'damaged.jsonl'), bytes);
        expectCleanRefusal(await workspace.run(['import', 'damaged.jsonl']), `import ${label}`);
        // No session, and no store file: a failed import into a new store leaves nothing.
        expect(existsSync(join(workspace.cwd, '.shadowlog')), label).toBe(false);
        count('CLI JSONL files');
      }
    } finally {
      workspace.cleanup();
    }
  }, 60_000);

  it('a torn final line and CRLF endings import what is whole, and say so', async () => {
    const torn = new MemoryLogStore();
    const cut = good.slice(0, good.length - 25);
    const result = await importSession(torn, Readable.from([Buffer.from(cut)]));
    expect(result.events).toBe(lines.length - 2);
    expect(result.tornLine?.line).toBe(lines.length);
    const crlf = new MemoryLogStore();
    expect((await importSession(crlf, Readable.from([Buffer.from(good.replaceAll('\n', '\r\n'))]))).events).toBe(lines.length - 1);
    // A UTF-8 byte-order mark (as some editors write) is read as the encoding mark it is.
    const bom = new MemoryLogStore();
    expect((await importSession(bom, Readable.from([Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(good)])]))).events).toBe(
      lines.length - 1,
    );
    expect(await collect(bom, GOOD)).toEqual(await collect(crlf, GOOD));
    count('JSONL files', 3);
  });
});

const HUGE_CHARS = 50 * 1024 * 1024;

describe('a 50 MB tool result', () => {
  it('goes through the meter and the pruner, which keep head and tail exactly', async () => {
    const unit = 'line of build output ✓ 构建 🚀\n';
    const text = unit.repeat(Math.ceil(HUGE_CHARS / unit.length)).slice(0, HUGE_CHARS - 1);
    const content = [{ type: 'text' as const, text }];
    const chars4 = new SurfaceMeter(chars4Estimator).priceOfData('tool/result', { callId: 'c', content });
    expect(chars4).toBe(Math.ceil(text.length / 4) + 4 + 4);
    // The script-aware estimator reads the text character by character (about 6 s for 50 MB here).
    const started = Date.now();
    const scriptAware = new SurfaceMeter(scriptAwareEstimator).priceOfData('tool/result', { callId: 'c', content });
    expect(Number.isSafeInteger(scriptAware) && scriptAware > chars4 / 4).toBe(true);
    console.log(`script-aware estimate of a 50 MB tool result: ${scriptAware} tokens in ${Date.now() - started} ms`);

    const store = new MemoryLogStore();
    const log = await SessionLog.create(store, 'huge', { now: fixedNow });
    await log.append([drafts.user('build it'), drafts.assistant('building', ['c1']), drafts.toolResult('c1', text)]);
    const pruner = createToolResultPruner();
    const outcome = await pruner.prune(log, new SurfaceMeter(chars4Estimator));
    expect(outcome.pruned).toEqual([3]);
    expect(outcome.charsBefore).toBe(codePointLength(text));
    const node = log.fold.toArray().at(-1);
    expect(node?.sourceEventSeqs).toEqual([3, 4]);
    if (node === undefined) throw new Error('the surface is empty');
    const replaced = ((node.event.data as { content: Array<{ text: string }> }).content[0] as { text: string }).text;
    // The first headChars and the last tailChars code points (spread from the ends only: 50 MB is big).
    const { headChars, tailChars, thresholdChars } = PRUNER_DEFAULTS;
    expect(replaced.startsWith([...text.slice(0, 10_000)].slice(0, headChars).join(''))).toBe(true);
    expect(replaced.endsWith([...text.slice(-10_000)].slice(-tailChars).join(''))).toBe(true);
    expect(codePointLength(replaced)).toBeLessThanOrEqual(thresholdChars);
    expect(hasBrokenSurrogate(replaced)).toBe(false);
    // A second pass prunes nothing.
    expect((await pruner.prune(log, new SurfaceMeter(chars4Estimator))).pruned).toEqual([]);
    const pruneEvent = await log.readEvent(4);
    expect(pruneEvent.data).toMatchObject({ shadowedSeqs: [3], shadowedTokenCount: chars4, charsBefore: codePointLength(text) });
    count('huge tool results');
  }, 60_000);
});

describe('emoji and CJK at the pruner’s cut point', () => {
  it('never splits a surrogate pair, and keeps exactly head and tail code points', () => {
    const alphabets = ['😀', '👩‍👩‍👧‍👦', '𠜎', '漢字かな한글', '🇫🇷', 'é', 'a', '\u{1F3FD}'];
    let checked = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const headChars = 1 + ((seed * 7) % 60);
      const tailChars = 1 + ((seed * 13) % 60);
      const thresholdChars = headChars + tailChars + LONGEST_PRUNE_MARKER_LENGTH + (seed % 50);
      const pruner = createToolResultPruner({ thresholdChars, headChars, tailChars });
      const pieces: string[] = [];
      for (let index = 0; codePointLength(pieces.join('')) <= thresholdChars + seed; index++)
        pieces.push(alphabets[(index * seed + index) % alphabets.length] as string);
      const text = pieces.join('');
      // Sometimes two text blocks around an image, so the cut lands across blocks.
      const split = [...text].slice(0, seed % 90).join('');
      const content =
        seed % 3 === 0
          ? [
              { type: 'text' as const, text: split },
              { type: 'image' as const, mediaType: 'image/png', data: 'iVBORw0KGgo=' },
              { type: 'text' as const, text: text.slice(split.length) },
            ]
          : [{ type: 'text' as const, text }];
      const cut = pruner.cut(content, 7);
      expect(cut, `seed ${seed}`).toBeDefined();
      const texts = (cut?.blocks ?? []).filter((block) => block.type === 'text').map((block) => (block as { text: string }).text);
      for (const piece of texts) expect(hasBrokenSurrogate(piece), `seed ${seed}: ${JSON.stringify(piece)}`).toBe(false);
      const joined = texts.join('');
      const points = [...text];
      expect(joined.startsWith(points.slice(0, headChars).join('')), `seed ${seed}`).toBe(true);
      expect(joined.endsWith(points.slice(-tailChars).join('')), `seed ${seed}`).toBe(true);
      expect(cut?.blocks.some((block) => block.type === 'image')).toBe(seed % 3 === 0);
      checked++;
    }
    count('multi-script cut points', checked);
  });
});

describe('provider answers that are cut short, not JSON, or never end', () => {
  let server: FakeProviderServer;
  beforeAll(async () => {
    server = await startFakeProviderServer();
  });
  afterAll(async () => {
    await server.close();
  });

  const timeouts: Partial<Timeouts> = { idleMs: 300, totalMs: 1_500 };
  const adapters: Record<string, { create: () => LanguageModel; stream: () => string[] }> = {
    openai: {
      create: () => createOpenAIChatModel({ model: 'gpt-4o', apiKey: 'sk-test', baseUrl: `${server.baseUrl}/v1`, env: {}, timeouts }),
      stream: () => readFixtureChunks('openai-text').slice(0, 40),
    },
    anthropic: {
      create: () =>
        createAnthropicMessagesModel({ model: 'claude-sonnet-4-5', apiKey: 'sk-ant-test', baseUrl: server.baseUrl, env: {}, timeouts }),
      stream: () => readFixtureChunks('anthropic-text').slice(0, 6),
    },
  };

  it('each fails fast with a typed ProviderError', async () => {
    for (const [name, adapter] of Object.entries(adapters)) {
      const answers: Array<[string, boolean, () => void]> = [
        [
          'truncated JSON',
          false,
          () => server.enqueue({ type: 'raw', body: '{"id":"x","choices":[{"mess', contentType: 'application/json' }),
        ],
        [
          'an HTML page',
          false,
          () => server.enqueue({ type: 'raw', body: '<html><body>502 Bad Gateway</body></html>', contentType: 'text/html' }),
        ],
        ['JSON of the wrong shape', false, () => server.enqueue({ type: 'json', body: { hello: 'world' } })],
        ['JSON null', false, () => server.enqueue({ type: 'raw', body: 'null', contentType: 'application/json' })],
        ['an empty body', false, () => server.enqueue({ type: 'raw', body: '', contentType: 'application/json' })],
        ['an error that is not JSON', false, () => server.enqueue({ type: 'error', status: 500, body: 'upstream exploded' })],
        ['headers then nothing', false, () => server.enqueue({ type: 'stall' })],
        [
          'a stream cut mid-event',
          true,
          () => server.enqueue({ type: 'sse', payloads: adapter.stream(), end: 'destroy', cutAfterBytes: 700, chunkSizes: [100] }),
        ],
        ['a stream of garbage data', true, () => server.enqueue({ type: 'sse', payloads: ['{not json', 'still not'], end: 'complete' })],
        ['a stream that stalls', true, () => server.enqueue({ type: 'sse', payloads: adapter.stream().slice(0, 2), end: 'stall' })],
        ['a stream that never ends', true, () => server.enqueue({ type: 'stall', heartbeatMs: 20 })],
      ];
      for (const [label, stream, enqueue] of answers) {
        enqueue();
        const model = adapter.create();
        const started = Date.now();
        const outcome = await model
          .send(model.render({ messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }], params: { tools: [], stream } }))
          .then(
            (result) => ({ result }),
            (error: unknown) => ({ error }),
          );
        expect('error' in outcome, `${name}, ${label}: ${JSON.stringify(outcome).slice(0, 300)}`).toBe(true);
        const error = (outcome as { error: unknown }).error;
        expect(ShadowlogError.isInstance(error), `${name}, ${label}: ${String(error)}`).toBe(true);
        expect((error as ShadowlogError).code, `${name}, ${label}`).not.toBe('INTERNAL');
        expect(Date.now() - started, `${name}, ${label}`).toBeLessThan(5_000);
        count('provider answers');
      }
    }
    expect(server.remaining()).toBe(0);
  }, 60_000);
});
