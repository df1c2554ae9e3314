// What every command gets: where to write, the --json switch, and the store it was pointed at.

import type { Readable, Writable } from 'node:stream';
import type { LogStore } from '../store/index.js';
import { OutputClosed, type OutputWatch } from './closed-output.js';
import { escapeTerminalText } from './terminal-text.js';

export interface CliIo {
  readonly stdout: Writable;
  readonly stderr: Writable;
  readonly stdin: Readable;
  readonly cwd: string;
  /** Ends a command that runs until stopped (`show --follow`), as Ctrl-C does. */
  readonly signal?: AbortSignal;
}

export interface CommandContext {
  readonly io: CliIo;
  readonly json: boolean;
  /** Opens the selected store once, on first use. */
  store(): Promise<LogStore>;
  /**
   * Writes text for a person (a newline is added) to stdout, with terminal control sequences
   * from the log shown escaped.
   */
  print(text: string): void;
  /** Writes `text` to stdout exactly as given (a request body, an export): bytes, not display. */
  write(text: string): void;
  /** Writes one JSON document to stdout. */
  printJson(value: unknown): void;
}

export function createContext(
  io: CliIo,
  json: boolean,
  openStore: () => Promise<LogStore>,
  output: Pick<OutputWatch, 'closed'> = { closed: false },
): CommandContext & { close(): Promise<void> } {
  let opened: Promise<LogStore> | undefined;
  // Once the reader has gone there is no one to print for: the command ends there.
  const writeOut = (text: string) => {
    if (output.closed) throw new OutputClosed();
    io.stdout.write(text);
  };
  return {
    io,
    json,
    store: () => {
      opened ??= openStore();
      return opened;
    },
    print: (text) => writeOut(`${escapeTerminalText(text)}\n`),
    write: writeOut,
    printJson: (value) => writeOut(`${JSON.stringify(value, null, 2)}\n`),
    close: async () => {
      if (opened !== undefined) await (await opened).close();
    },
  };
}
