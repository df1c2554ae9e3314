// Model and tool text can hold terminal control sequences. Human-readable output must show them
// escaped, so that a tool output cannot clear, recolour or rewrite what the reader of the record
// sees; --json output keeps the text exactly.

import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { escapeTerminalText } from '../../src/cli/terminal-text.js';
import { SessionLog } from '../../src/store/session-log.js';
import { openSqliteStore } from '../../src/store/sqlite/index.js';
import { createCliWorkspace } from '../support/cli.js';
import { drafts, fixedNow } from '../support/events.js';

const HOSTILE = [
  '\u001b[2J\u001b[H', // clear the screen, cursor home
  '\u001b]8;;http://127.0.0.1/\u0007link\u001b]8;;\u0007', // an OSC 8 hyperlink
  'all tests passed\rFAILED', // a carriage return that overwrites the line
  '\u009b31m', // a C1 CSI
  'abc\u202edcba', // a bidi override
  '\u2066isolate\u2069',
  'bell\u0007 and backspace\u0008 and delete\u007f',
].join(' ');

// Anything that acts on a terminal, after escaping: C0 (other than tab and newline), DEL, C1, bidi.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const ACTS_ON_TERMINAL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

describe('terminal control sequences in human-readable output', () => {
  let workspace: ReturnType<typeof createCliWorkspace>;
  beforeEach(async () => {
    workspace = createCliWorkspace();
    const store = await openSqliteStore(join(workspace.cwd, '.shadowlog/shadowlog.db'));
    const log = await SessionLog.create(store, 'hostile', { now: fixedNow });
    await log.append([drafts.user(`look: ${HOSTILE}`), drafts.assistant(HOSTILE, ['call-1']), drafts.toolResult('call-1', HOSTILE)]);
    await log.append([drafts.summary(`summary of ${HOSTILE}`, 1, 3, [1, 2, 3])]);
    await store.close();
  });
  afterEach(() => workspace.cleanup());

  it('escapes every character that acts on a terminal and keeps tab and newline', () => {
    expect(escapeTerminalText('a\u001b[2Jb')).toBe('a\\x1b[2Jb');
    expect(escapeTerminalText('x\ry')).toBe('x\\x0dy');
    expect(escapeTerminalText('\u202e')).toBe('\\u202e');
    expect(escapeTerminalText('\u009b')).toBe('\\x9b');
    expect(escapeTerminalText('tab\tand\nnewline, 日本語, emoji 🙂')).toBe('tab\tand\nnewline, 日本語, emoji 🙂');
    expect(escapeTerminalText(HOSTILE)).not.toMatch(ACTS_ON_TERMINAL);
  });

  it.each([
    ['show (the surface)', ['show', 'hostile']],
    ['show --record', ['show', 'hostile', '--record', '--full']],
    ['origins', ['origins', 'hostile', '4', '--full']],
    ['show --follow', ['show', 'hostile', '--follow', '--until-seq', '4']],
  ])('%s shows the sequences escaped', async (_name, args) => {
    const result = await workspace.run(args);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).not.toMatch(ACTS_ON_TERMINAL);
    expect(result.stdout).toContain('\\x1b[2J');
    expect(result.stdout).toContain('\\u202e');
  });

  it('keeps the exact text with --json', async () => {
    const record = JSON.parse((await workspace.run(['show', 'hostile', '--record', '--json'])).stdout) as {
      events: Array<{ data: { content?: Array<{ text: string }> } }>;
    };
    expect(record.events[3]?.data.content?.[0]?.text).toBe(HOSTILE);
  });

  it('escapes the text of an error message', async () => {
    // The message quotes the path it was given, control characters and all.
    const result = await workspace.run(['meter', 'no\u001b[2Jsuch.txt']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('\\x1b[2J');
    expect(result.stderr).not.toMatch(ACTS_ON_TERMINAL);
  });
});
