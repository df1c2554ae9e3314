// `shadowlog meter <file|->`: the tokens of a text file under each estimator and each offline
// tokenizer (SPEC §10, §12), with each count's ratio to o200k_base.

import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { HEURISTIC_ESTIMATOR_NAMES, heuristicEstimator, loadTokenizer, TOKENIZER_NAMES } from '../../meter/index.js';
import { collectInputBytes, readInputBytes } from '../../store/index.js';
import type { RunCommand } from '../command-kit.js';
import type { CommandContext } from '../context.js';
import { UsageError } from '../usage-error.js';

/** A file given to `meter` that is not UTF-8 text. Bad usage: exit 2. */
export class NotUtf8Error extends UsageError {
  readonly file: string;
  /** The offset of the first byte that does not belong to a well-formed UTF-8 sequence. */
  readonly byteOffset: number;
  constructor(file: string, byteOffset: number) {
    super(
      `expected UTF-8 text in ${file}, found a byte sequence that is not UTF-8 at byte ${byteOffset}; meter counts text: convert the file to UTF-8 first (iconv -t UTF-8)`,
    );
    this.file = file;
    this.byteOffset = byteOffset;
  }
}

/** The most `meter` reads: 256 MiB of text takes the tokenizers minutes already. */
export const METER_MAX_BYTES = 256 * 1024 * 1024;

export interface MeterReport {
  readonly file: string;
  /** Unicode code points. */
  readonly characters: number;
  readonly bytes: number;
  readonly estimators: Record<string, number>;
  readonly tokenizers: Record<string, number>;
}

export async function meterCommand(context: CommandContext, file: string): Promise<number> {
  const shownName = file === '-' ? '(standard input)' : file;
  // Read whole, but bounded: a regular file (not /dev/zero, a FIFO or a directory), or standard input, of at most METER_MAX_BYTES.
  const bounds = {
    shown: shownName,
    expected: 'a text file, or - for standard input',
    maxBytes: METER_MAX_BYTES,
    maxLineBytes: METER_MAX_BYTES,
  };
  const bytes =
    file === '-'
      ? await collectInputBytes(context.io.stdin as AsyncIterable<Buffer | string>, shownName, bounds)
      : await readInputBytes(existingFile(resolve(context.io.cwd, file), file), bounds);
  const text = decodeUtf8(bytes, shownName);

  const estimators: Record<string, number> = {};
  for (const name of HEURISTIC_ESTIMATOR_NAMES) estimators[name] = heuristicEstimator(name).countText(text);
  const tokenizers: Record<string, number> = {};
  for (const name of TOKENIZER_NAMES) tokenizers[name] = (await loadTokenizer(name)).countText(text);
  const report: MeterReport = { file: shownName, characters: countCodePoints(text), bytes: bytes.length, estimators, tokenizers };

  if (context.json) context.printJson(report);
  else printTable(context, report);
  return 0;
}

function printTable(context: CommandContext, report: MeterReport): void {
  const reference = report.tokenizers.o200k_base ?? 0;
  context.print(`${report.file}: ${report.characters} characters, ${report.bytes} bytes`);
  context.print(`${'METER'.padEnd(14)}${'TOKENS'.padStart(10)}  ${'× o200k_base'.padStart(12)}`);
  const rows = [...Object.entries(report.estimators), ...Object.entries(report.tokenizers)];
  for (const [name, tokens] of rows) {
    const ratio = reference === 0 ? '–' : (tokens / reference).toFixed(2);
    context.print(`${name.padEnd(14)}${String(tokens).padStart(10)}  ${ratio.padStart(12)}`);
  }
}

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/** The text of `bytes` (a leading byte-order mark dropped); not UTF-8 → NotUtf8Error. */
function decodeUtf8(bytes: Uint8Array, shownName: string): string {
  try {
    return STRICT_UTF8.decode(bytes);
  } catch {
    throw new NotUtf8Error(shownName, firstInvalidUtf8Byte(bytes));
  }
}

/** The offset of the first byte that starts no well-formed UTF-8 sequence (RFC 3629), or -1. */
function firstInvalidUtf8Byte(bytes: Uint8Array): number {
  let index = 0;
  while (index < bytes.length) {
    const lead = bytes[index] as number;
    if (lead < 0x80) {
      index++;
      continue;
    }
    const continuations = lead >= 0xc2 && lead <= 0xdf ? 1 : lead >= 0xe0 && lead <= 0xef ? 2 : lead >= 0xf0 && lead <= 0xf4 ? 3 : 0;
    if (continuations === 0) return index;
    // The second byte's range excludes overlong forms, surrogates and code points past U+10FFFF.
    const low = lead === 0xe0 ? 0xa0 : lead === 0xf0 ? 0x90 : 0x80;
    const high = lead === 0xed ? 0x9f : lead === 0xf4 ? 0x8f : 0xbf;
    const second = bytes[index + 1];
    if (second === undefined || second < low || second > high) return index;
    for (let offset = 2; offset <= continuations; offset++) {
      const next = bytes[index + offset];
      if (next === undefined || (next & 0xc0) !== 0x80) return index;
    }
    index += continuations + 1;
  }
  return -1;
}

function countCodePoints(text: string): number {
  let count = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    // A high surrogate followed by a low one is one code point.
    if (code >= 0xd800 && code <= 0xdbff && index + 1 < text.length) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) index++;
    }
    count++;
  }
  return count;
}

/** Registers `shadowlog meter` on the program. */
export function registerMeterCommand(program: Command, run: RunCommand): void {
  program
    .command('meter <file>')
    .description(
      "a text file's tokens under each estimator and each offline tokenizer, with their ratios to o200k_base (- reads standard input)",
    )
    .action((file: string) => run('read', (context) => meterCommand(context, file))());
}

function existingFile(path: string, shownName: string): string {
  if (!existsSync(path)) throw new UsageError(`no file ${shownName}; give the path of a text file, or - for standard input`);
  return path;
}
