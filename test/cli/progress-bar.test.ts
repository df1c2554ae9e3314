// The progress bar: redrawn in place on a terminal, at most every redrawMs and always at 100%,
// cut to the terminal's width; plain lines now and then on a pipe, none for a quick command.

import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createProgressBar } from '../../src/cli/progress-bar.js';

function capture(terminal: boolean, columns = 60) {
  const stream = Object.assign(new PassThrough(), terminal ? { isTTY: true, columns } : {});
  const chunks: string[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk.toString('utf8')));
  return { stream, chunks };
}

describe('createProgressBar', () => {
  it('redraws in place on a terminal, no oftener than redrawMs except to show 100%, and clears itself', async () => {
    const { stream, chunks } = capture(true);
    let time = 0;
    const bar = createProgressBar(stream, { label: 'copying', now: () => time, redrawMs: 100 });
    bar.update({ done: 0, total: 200, detail: 'first' });
    time = 50;
    bar.update({ done: 50, total: 200, detail: 'skipped: too soon' });
    time = 150;
    bar.update({ done: 100, total: 200, detail: 'half' });
    time = 160;
    bar.update({ done: 200, total: 200, detail: 'all' });
    bar.finish();
    bar.finish();
    await new Promise((resolve) => setImmediate(resolve));
    expect(chunks).toEqual([
      `\rcopying ${'░'.repeat(24)}   0%  first\x1b[K`,
      `\rcopying ${'█'.repeat(12)}${'░'.repeat(12)}  50%  half\x1b[K`,
      `\rcopying ${'█'.repeat(24)} 100%  all\x1b[K`,
      '\r\x1b[K',
    ]);
  });

  it('cuts a long line to the width of the terminal', async () => {
    const { stream, chunks } = capture(true, 40);
    createProgressBar(stream, { label: 'copying' }).update({ done: 1, total: 2, detail: 'x'.repeat(100) });
    await new Promise((resolve) => setImmediate(resolve));
    expect(chunks[0]?.replace('\r', '').replace('\x1b[K', '')).toHaveLength(39);
  });

  it('prints a plain line every lineMs on a pipe, the first only after lineMs, and nothing to clear', async () => {
    const { stream, chunks } = capture(false);
    let time = 0;
    const bar = createProgressBar(stream, { label: 'copying', now: () => time, lineMs: 1_000 });
    bar.update({ done: 1, total: 4, detail: 'quick' });
    time = 1_000;
    bar.update({ done: 2, total: 4, detail: 'a second in' });
    time = 1_500;
    bar.update({ done: 4, total: 4, detail: 'done, too soon to say' });
    bar.finish();
    await new Promise((resolve) => setImmediate(resolve));
    expect(chunks).toEqual(['copying: 50%, a second in\n']);
  });
});
