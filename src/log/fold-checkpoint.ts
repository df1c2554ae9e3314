// A fold checkpoint's payload: the state of a session's surface fold at one seq (fold-state.ts)
// as JSON text, so that opening a session can start from it instead of from seq 0. It is derived
// data, never part of the chain: it names the session, the seq, the hash of the event before that
// seq and the hash of event 0, which a reader checks against the log, and it is stored with a MAC
// under the writer's checkpoint key, which a reader checks before it reads anything in it
// (store/fold-checkpoints.ts, store/checkpoint-key.ts).
//
//   {"checkpoint":1,"sessionId":"s","seq":5,"headHash":"…","firstHash":"…","formatVersion":2,
//    "extensionTypes":[["compaction/summary",1,1]],"nodes":[1,4],"calls":[["c1",1,4]],
//    "meters":[[3,0,4,[]]],"surfaceBits":"12","request":[2,[1],[4]]}
//
// Meters name their type by its index in extensionTypes; -1 stands for null; the surface bits
// are hex, byte by byte.

import { FoldStateError } from './errors.js';
import type { FormatVersion } from './event.js';
import type { FoldState, MeterState, RequestState } from './fold-state.js';
import type { JsonValue } from './json-value.js';

/** The version of the payload's layout and of the fold rules it was folded under; a reader refuses others. */
export const CHECKPOINT_VERSION = 1;

/** What a payload says of itself, read before the state is trusted. */
export interface CheckpointHeader {
  readonly checkpointVersion: number;
  readonly sessionId: string;
  readonly seq: number;
  readonly headHash: string;
  readonly firstHash: string;
  readonly formatVersion: number;
}

/**
 * What an observer of the log kept from the events up to the checkpoint's seq (SessionLog's
 * `observer`): saved with the fold, under the observer's key, so that an open with the same
 * observer can start from the checkpoint too. The fold's own fields never depend on it.
 */
export interface ObservedState {
  readonly key: string;
  readonly state: JsonValue;
}

export function encodeFoldCheckpoint(sessionId: string, state: FoldState, observed?: ObservedState): string {
  const typeIndex = new Map(state.extensionTypes.map(({ type }, index) => [type, index]));
  const request = state.request === null ? null : [state.request.seq, state.request.seqs, state.request.appended];
  return JSON.stringify({
    checkpoint: CHECKPOINT_VERSION,
    sessionId,
    seq: state.nextSeq,
    headHash: state.headHash,
    firstHash: state.firstHash,
    formatVersion: state.formatVersion,
    extensionTypes: state.extensionTypes.map(({ type, known, metering }) => [type, known ? 1 : 0, metering ? 1 : 0]),
    nodes: state.nodeSeqs,
    calls: state.calls.map(([callId, callSeq, resultSeq]) => [callId, callSeq, resultSeq ?? -1]),
    meters: state.meters.map((meter) => [meter.seq, typeIndex.get(meter.type) ?? -1, meter.claimedBy ?? -1, meter.shadowedSeqs]),
    surfaceBits: toHex(state.surfaceBits),
    request,
    ...(observed === undefined ? {} : { observed: { key: observed.key, state: observed.state } }),
  });
}

/** The observed state a payload's body holds, if any; throws FoldStateError when the field is there and malformed. */
export function observedStateOf(body: Record<string, unknown>): ObservedState | undefined {
  const value = body.observed;
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new FoldStateError('observed is not an object');
  const { key, state } = value as Record<string, unknown>;
  if (typeof key !== 'string' || state === undefined) throw new FoldStateError('observed is not {key, state}');
  return { key, state: state as JsonValue };
}

/** The payload of `body` as encodeFoldCheckpoint writes it without an observed state: the part that is the fold's alone. */
export function foldPayloadOf(body: Record<string, unknown>): string {
  const { observed: _observed, ...fold } = body;
  return JSON.stringify(fold);
}

/** The header of a payload; throws FoldStateError when it is not JSON or has no well-formed header. */
export function readCheckpointHeader(payload: string): { header: CheckpointHeader; body: Record<string, unknown> } {
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch (error) {
    throw new FoldStateError(`the payload is not JSON (${(error as Error).message})`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new FoldStateError('the payload is not a JSON object');
  const body = value as Record<string, unknown>;
  const header: CheckpointHeader = {
    checkpointVersion: seqField(body, 'checkpoint'),
    sessionId: stringField(body, 'sessionId'),
    seq: seqField(body, 'seq'),
    headHash: hashField(body, 'headHash'),
    firstHash: hashField(body, 'firstHash'),
    formatVersion: seqField(body, 'formatVersion'),
  };
  return { header, body };
}

/** The fold state of a payload whose header was read and accepted (version CHECKPOINT_VERSION). */
export function decodeFoldState(header: CheckpointHeader, body: Record<string, unknown>): FoldState {
  const extensionTypes = arrayField(body, 'extensionTypes').map((entry, index) => {
    const [type, known, metering] = tuple(entry, 3, `extensionTypes[${index}]`);
    if (typeof type !== 'string' || (known !== 0 && known !== 1) || (metering !== 0 && metering !== 1)) {
      throw new FoldStateError(`extensionTypes[${index}] is not [type, 0|1, 0|1]`);
    }
    return { type, known: known === 1, metering: metering === 1 };
  });
  const nodeSeqs = seqList(arrayField(body, 'nodes'), 'nodes');
  const calls = arrayField(body, 'calls').map((entry, index) => {
    const [callId, callSeq, resultSeq] = tuple(entry, 3, `calls[${index}]`);
    if (typeof callId !== 'string') throw new FoldStateError(`calls[${index}] has no call id`);
    return [callId, seqOf(callSeq, `calls[${index}]`), optionalSeq(resultSeq, `calls[${index}]`)] as const;
  });
  const meters = arrayField(body, 'meters').map((entry, index): MeterState => {
    const [seq, typeIndex, claimedBy, shadowed] = tuple(entry, 4, `meters[${index}]`);
    const type = extensionTypes[seqOf(typeIndex, `meters[${index}]`)]?.type;
    if (type === undefined) throw new FoldStateError(`meters[${index}] names no extension type`);
    if (!Array.isArray(shadowed)) throw new FoldStateError(`meters[${index}] has no list of shadowed seqs`);
    return {
      seq: seqOf(seq, `meters[${index}]`),
      type,
      shadowedSeqs: seqList(shadowed, `meters[${index}]`),
      claimedBy: optionalSeq(claimedBy, `meters[${index}]`),
    };
  });
  const surfaceBits = fromHex(stringField(body, 'surfaceBits'));
  if (surfaceBits.length !== (header.seq + 7) >>> 3) {
    throw new FoldStateError(`surfaceBits holds ${surfaceBits.length} bytes, expected ${(header.seq + 7) >>> 3} for ${header.seq} events`);
  }
  if (header.formatVersion !== 1 && header.formatVersion !== 2)
    throw new FoldStateError(`format version ${header.formatVersion} is not 1 or 2`);
  return {
    nextSeq: header.seq,
    headHash: header.headHash,
    firstHash: header.firstHash,
    formatVersion: header.formatVersion as FormatVersion,
    extensionTypes,
    nodeSeqs,
    calls,
    meters,
    surfaceBits,
    request: requestOf(body.request),
  };
}

function requestOf(value: unknown): RequestState | null {
  if (value === null) return null;
  const [seq, seqs, appended] = tuple(value, 3, 'request');
  if (!Array.isArray(seqs) || (appended !== null && !Array.isArray(appended)))
    throw new FoldStateError('request is not [seq, seqs, appended]');
  return { seq: seqOf(seq, 'request'), seqs: seqList(seqs, 'request'), appended: appended === null ? null : seqList(appended, 'request') };
}

function tuple(value: unknown, length: number, field: string): unknown[] {
  if (!Array.isArray(value) || value.length !== length) throw new FoldStateError(`${field} is not a list of ${length}`);
  return value;
}

function arrayField(body: Record<string, unknown>, key: string): unknown[] {
  const value = body[key];
  if (!Array.isArray(value)) throw new FoldStateError(`${key} is not a list`);
  return value;
}

function stringField(body: Record<string, unknown>, key: string): string {
  const value = body[key];
  if (typeof value !== 'string') throw new FoldStateError(`${key} is not a string`);
  return value;
}

function hashField(body: Record<string, unknown>, key: string): string {
  const value = stringField(body, key);
  if (!/^[0-9a-f]{64}$/.test(value)) throw new FoldStateError(`${key} is not a hex SHA-256 digest`);
  return value;
}

function seqField(body: Record<string, unknown>, key: string): number {
  return seqOf(body[key], key);
}

function seqOf(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
    throw new FoldStateError(`${field} holds a value that is not a seq`);
  return value;
}

function optionalSeq(value: unknown, field: string): number | null {
  return value === -1 ? null : seqOf(value, field);
}

function seqList(values: readonly unknown[], field: string): number[] {
  for (const value of values) seqOf(value, field);
  return values as number[];
}

const HEX_DIGITS = '0123456789abcdef';
const BYTE_HEX = Array.from({ length: 256 }, (_, byte) => (HEX_DIGITS[byte >>> 4] as string) + (HEX_DIGITS[byte & 15] as string));

function toHex(bytes: Uint8Array): string {
  const parts: string[] = [];
  const CHUNK = 8192;
  for (let start = 0; start < bytes.length; start += CHUNK) {
    let chunk = '';
    const end = Math.min(bytes.length, start + CHUNK);
    for (let index = start; index < end; index++) chunk += BYTE_HEX[bytes[index] as number];
    parts.push(chunk);
  }
  return parts.join('');
}

function fromHex(text: string): Uint8Array {
  if (text.length % 2 !== 0 || !/^[0-9a-f]*$/.test(text)) throw new FoldStateError('surfaceBits is not lowercase hex');
  const bytes = new Uint8Array(text.length / 2);
  for (let index = 0; index < bytes.length; index++) bytes[index] = Number.parseInt(text.slice(2 * index, 2 * index + 2), 16);
  return bytes;
}
