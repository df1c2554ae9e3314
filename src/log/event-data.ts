// Typed access to the data of core events: `dataOf(event, 'assistant/message')` gives an
// AssistantMessageData, validated once. The fold marks the data it validated when it applied the
// event (in the session's own format version); data that did not come through a fold (a reader
// of a store's pages) is validated here, on first access, against the version-2 shapes, which
// hold everything either version wrote.

import { coreShapeOf } from './core-shapes.js';
import { InvalidEventError } from './errors.js';
import type {
  AssistantMessageData,
  FormatVersion,
  MessageData,
  ModelErrorData,
  ModelRequestData,
  ModelUnrecordedAnswerData,
  SessionEndSeedData,
  SessionForkData,
  SessionStartData,
  ToolResultData,
  TurnEndData,
  TurnStartData,
} from './event.js';

export interface CoreEventData {
  'session/start': SessionStartData;
  'session/end-seed': SessionEndSeedData;
  'session/fork': SessionForkData;
  'turn/start': TurnStartData;
  'turn/end': TurnEndData;
  'system/message': MessageData;
  'user/message': MessageData;
  'assistant/message': AssistantMessageData;
  'tool/result': ToolResultData;
  'model/request': ModelRequestData;
  'model/error': ModelErrorData;
  'model/unrecorded-answer': ModelUnrecordedAnswerData;
}
export type CoreEventType = keyof CoreEventData;

/**
 * The data dataOf validated. Only dataOf adds to it, on a first access: a WeakSet entry for every
 * event a fold applies cost the garbage collector a large share of sealing a batch of drafts,
 * and most events (model requests, turn markers) are never read through dataOf again.
 */
const validated = new WeakSet<object>();

/** Validates the data of a core event in a format version. */
export function validateCoreData(type: string, data: unknown, seq: number | undefined, version: FormatVersion): void {
  const check = coreShapeOf(type, version);
  if (check === undefined) return;
  check(data, 'data', seq);
}

type TypedEvent = { readonly type: string; readonly data: object; readonly seq?: number };

/** The data of `event`, typed; throws InvalidEventError when the event is of another type or its data has the wrong shape. */
export function dataOf<T extends CoreEventType>(event: TypedEvent, type: T): CoreEventData[T] {
  if (event.type !== type) throw new InvalidEventError('type', type, JSON.stringify(event.type), event.seq);
  if (!validated.has(event.data)) {
    validateCoreData(type, event.data, event.seq, 2);
    validated.add(event.data);
  }
  return event.data as unknown as CoreEventData[T];
}

/**
 * dataOf for the fold and its rules, on an event the fold has applied or is applying: its data
 * was validated then, in the session's format version, so it is not checked again.
 */
export function appliedDataOf<T extends CoreEventType>(event: TypedEvent, type: T): CoreEventData[T] {
  if (event.type !== type) throw new InvalidEventError('type', type, JSON.stringify(event.type), event.seq);
  return event.data as unknown as CoreEventData[T];
}
