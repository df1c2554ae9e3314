// A reader of server-sent events (the WHATWG event-stream format) over a byte stream: it
// yields each event's name and data, whatever the network's chunk boundaries, line endings
// (LF, CRLF, CR) or multi-byte characters split between chunks.

export interface ServerSentEvent {
  /** The `event:` field; undefined when the event had none (OpenAI sends none). */
  readonly event: string | undefined;
  /** The `data:` lines joined with newlines. */
  readonly data: string;
}

export async function* readServerSentEvents(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<ServerSentEvent> {
  const decoder = new TextDecoder();
  const splitter = new LineSplitter();
  const builder = new EventBuilder();
  for await (const chunk of chunks) {
    for (const line of splitter.push(decoder.decode(chunk, { stream: true }))) {
      const event = builder.take(line);
      if (event !== undefined) yield event;
    }
  }
  for (const line of splitter.push(decoder.decode())) {
    const event = builder.take(line);
    if (event !== undefined) yield event;
  }
  // An event not closed by a blank line when the stream ends is dropped, as the format
  // requires: it may be cut short, and the adapters notice the missing end of the message.
}

/** Splits text into lines across pushes; a CR that ends one push may pair with an LF that starts the next. */
class LineSplitter {
  private buffer = '';
  private skipLineFeed = false;

  push(text: string): string[] {
    let buffer = this.buffer + text;
    if (this.skipLineFeed && buffer.length > 0) {
      if (buffer.startsWith('\n')) buffer = buffer.slice(1);
      this.skipLineFeed = false;
    }
    const lines: string[] = [];
    let start = 0;
    const endings = /\r\n|\r|\n/g;
    for (let match = endings.exec(buffer); match !== null; match = endings.exec(buffer)) {
      lines.push(buffer.slice(start, match.index));
      start = match.index + match[0].length;
      // A lone CR at the very end may be the first half of a CRLF still on the wire.
      if (match[0] === '\r' && start === buffer.length) this.skipLineFeed = true;
    }
    this.buffer = buffer.slice(start);
    return lines;
  }
}

/** Collects the fields of one event; a blank line dispatches it. */
class EventBuilder {
  private event: string | undefined;
  private data: string[] = [];

  take(line: string): ServerSentEvent | undefined {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.event = value;
    else if (field === 'data') this.data.push(value);
    // `id` and `retry` matter only to a reconnecting browser; other fields are ignored by the format.
    return undefined;
  }

  private dispatch(): ServerSentEvent | undefined {
    const event = this.data.length === 0 ? undefined : { event: this.event, data: this.data.join('\n') };
    this.event = undefined;
    this.data = [];
    return event;
  }
}
