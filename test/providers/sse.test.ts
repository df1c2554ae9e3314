// The SSE reader: events come out the same whatever the chunk boundaries and line endings.

import { describe, expect, it } from 'vitest';
import { readServerSentEvents, type ServerSentEvent } from '../../src/providers/sse.js';

async function* chunksOf(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let offset = 0; offset < bytes.length; offset += size) yield bytes.subarray(offset, offset + size);
}

async function read(text: string, size = Number.MAX_SAFE_INTEGER): Promise<ServerSentEvent[]> {
  const events: ServerSentEvent[] = [];
  for await (const event of readServerSentEvents(chunksOf(new TextEncoder().encode(text), size))) events.push(event);
  return events;
}

const STREAM = [
  ': a comment the reader skips',
  'event: message_start',
  'data: {"type":"message_start","text":"héllo ☕ 😀"}',
  '',
  'data: first line',
  'data:second line without a space',
  'data:  two spaces keep one',
  '',
  'event: ping',
  'data',
  '',
  'id: 7',
  'retry: 1000',
  'data: [DONE]',
  '',
  '',
].join('\n');

const EXPECTED: ServerSentEvent[] = [
  { event: 'message_start', data: '{"type":"message_start","text":"héllo ☕ 😀"}' },
  { event: undefined, data: 'first line\nsecond line without a space\n two spaces keep one' },
  { event: 'ping', data: '' },
  { event: undefined, data: '[DONE]' },
];

describe('readServerSentEvents', () => {
  it('reads names, data, multi-line data and comments', async () => {
    expect(await read(STREAM)).toEqual(EXPECTED);
  });

  it('gives the same events for every chunk size, even cutting through characters', async () => {
    for (const size of [1, 2, 3, 5, 7, 13, 64]) expect(await read(STREAM, size)).toEqual(EXPECTED);
  });

  it('accepts CRLF and lone CR line endings, split at any byte', async () => {
    for (const ending of ['\r\n', '\r']) {
      const text = STREAM.replaceAll('\n', ending);
      for (const size of [1, 2, 3, 1000]) expect(await read(text, size)).toEqual(EXPECTED);
    }
  });

  it('does not take a CR at a chunk end and the LF that follows for two line endings', async () => {
    // CR LF across the boundary is one line ending; taken as two it would dispatch early.
    const text = 'data: a\r\ndata: b\r\n\r\n';
    const cut = text.indexOf('\n');
    async function* twoChunks() {
      yield new TextEncoder().encode(text.slice(0, cut));
      yield new TextEncoder().encode(text.slice(cut));
    }
    const events: ServerSentEvent[] = [];
    for await (const event of readServerSentEvents(twoChunks())) events.push(event);
    expect(events).toEqual([{ event: undefined, data: 'a\nb' }]);
  });

  it('drops an event that the stream ends before its blank line', async () => {
    expect(await read('data: complete\n\ndata: cut sho')).toEqual([{ event: undefined, data: 'complete' }]);
    expect(await read('data: complete\n\ndata: no blank line\n')).toEqual([{ event: undefined, data: 'complete' }]);
  });

  it('skips a byte-order mark and blank lines with no data', async () => {
    expect(await read('\uFEFFdata: x\n\n\n\n: only a comment\n\n')).toEqual([{ event: undefined, data: 'x' }]);
  });

  it('forgets an event name after dispatching', async () => {
    expect(await read('event: a\ndata: 1\n\ndata: 2\n\n')).toEqual([
      { event: 'a', data: '1' },
      { event: undefined, data: '2' },
    ]);
  });
});
