// The registry of event types a reader knows, with the data shape of each (SPEC §2).

import { FormatVersionError, InvalidEventError } from './errors.js';
import { CORE_LOG_ONLY_TYPES, FORMAT_VERSION, SURFACE_TYPES, TURN_END_REASONS } from './event.js';
import {
  arrayOf,
  type Checker,
  fail,
  isAnything,
  isBoolean,
  isCount,
  isNonEmptyString,
  isObject,
  isPlainObject,
  isPositiveInteger,
  isSeq,
  isString,
  objectWith,
  oneOf,
} from './shape.js';

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const DIGEST = /^[0-9a-f]{64}$/;
const TYPE_NAME = /^[a-z][a-z0-9-]*\/[a-z][a-z0-9-]*$/;

const contentBlock: Checker = (value, field, seq) => {
  if (!isPlainObject(value)) fail(field, 'a content block object', value, seq);
  if (value.type === 'text') {
    isString(value.text, `${field}.text`, seq);
  } else if (value.type === 'image') {
    isNonEmptyString(value.mediaType, `${field}.mediaType`, seq);
    if (typeof value.data !== 'string' || value.data.length % 4 !== 0 || !BASE64.test(value.data)) {
      fail(`${field}.data`, 'base64 text', value.data, seq);
    }
  } else {
    fail(`${field}.type`, "'text' or 'image'", value.type, seq);
  }
};
const content = arrayOf(contentBlock);
const digest: Checker = (value, field, seq) => {
  if (typeof value !== 'string' || !DIGEST.test(value)) fail(field, 'a lowercase hex SHA-256 digest', value, seq);
};

const toolCall = objectWith(
  { callId: isNonEmptyString, name: isNonEmptyString, arguments: isAnything },
  { argumentsText: isString, providerCallId: isString },
);

/** A format version this reader knows: a session written by a newer shadowlog is refused, not misread. */
const formatVersion: Checker = (value, field, seq) => {
  isPositiveInteger(value, field, seq);
  if ((value as number) > FORMAT_VERSION) throw new FormatVersionError(value as number, FORMAT_VERSION, seq);
};

const CORE_SHAPES: Record<string, Checker> = {
  'session/start': objectWith({ formatVersion, harnessVersion: isString }),
  'session/end-seed': objectWith({ reason: isString }),
  'turn/start': objectWith({ turn: isPositiveInteger }),
  'turn/end': objectWith({
    turn: isPositiveInteger,
    reason: (value, field, seq) => {
      if (typeof value !== 'string' || !(TURN_END_REASONS as readonly string[]).includes(value)) {
        fail(field, `one of ${TURN_END_REASONS.join(', ')}`, value, seq);
      }
    },
  }),
  'system/message': objectWith({ content }),
  'user/message': objectWith({ content }),
  'assistant/message': objectWith(
    { content, toolCalls: arrayOf(toolCall), model: isString },
    { usage: objectWith({ inputTokens: isCount, outputTokens: isCount }) },
  ),
  'tool/result': objectWith({ callId: isNonEmptyString, content }, { error: objectWith({ message: isString }) }),
  'model/request': objectWith({
    turn: isPositiveInteger,
    step: isPositiveInteger,
    provider: isString,
    model: isString,
    params: isObject,
    surfaceSeqs: arrayOf(isSeq),
    requestDigest: digest,
    estimatedTokens: isCount,
    rendererVersion: isString,
  }),
  'model/error': objectWith({
    turn: isPositiveInteger,
    step: isPositiveInteger,
    code: isString,
    message: isString,
    retryable: isBoolean,
    contextOverflow: isBoolean,
  }),
  'model/unrecorded-answer': objectWith({
    turn: isPositiveInteger,
    step: isPositiveInteger,
    code: isString,
    message: isString,
    raw: objectWith({ format: oneOf(['json', 'sse', 'result']), text: isString }),
  }),
};

export interface EventTypeDefinition {
  readonly type: string;
  /** Checks `data`; throws InvalidEventError. Omit to accept any object. */
  readonly validate?: (data: Record<string, unknown>, seq: number | undefined) => void;
  /**
   * For a metering event, one written together with the replacement it measures (compaction's
   * summary and prune): the surface nodes that replacement shadows, in surface order, as the
   * event's (validated) data names them. The fold holds the two to each other: the listed seqs
   * must be consecutive current nodes when the event is applied, and the replacement that lists
   * the event in its sourceEventSeqs must shadow exactly them.
   */
  readonly shadowedSeqs?: (data: Record<string, unknown>) => readonly number[];
}

/**
 * The types a reader knows. Surface types are fixed by the format; other modules (compaction)
 * register their log-only types here, so that the spine never needs to know them by name.
 */
export class EventTypeRegistry {
  private readonly shapes = new Map<string, Checker>();
  private readonly metering = new Map<string, (data: Record<string, unknown>) => readonly number[]>();

  constructor(extensions: readonly EventTypeDefinition[] = []) {
    for (const [type, check] of Object.entries(CORE_SHAPES)) this.shapes.set(type, check);
    for (const extension of extensions) this.register(extension);
  }

  register(definition: EventTypeDefinition): void {
    if (!TYPE_NAME.test(definition.type)) {
      throw new InvalidEventError('type', 'a namespaced noun/verb name in lower case', JSON.stringify(definition.type));
    }
    if (CORE_SHAPES[definition.type] !== undefined) {
      throw new InvalidEventError('type', 'a type that is not one of the core types', JSON.stringify(definition.type));
    }
    const validate = definition.validate;
    this.shapes.set(definition.type, (value, field, seq) => {
      isObject(value, field, seq);
      validate?.(value as Record<string, unknown>, seq);
    });
    if (definition.shadowedSeqs !== undefined) this.metering.set(definition.type, definition.shadowedSeqs);
    else this.metering.delete(definition.type);
  }

  isKnown(type: string): boolean {
    return this.shapes.has(type);
  }

  /** For a metering event (see EventTypeDefinition.shadowedSeqs), the nodes its replacement shadows; else undefined. */
  shadowedSeqsOf(type: string, data: Record<string, unknown>): readonly number[] | undefined {
    return this.metering.get(type)?.(data);
  }

  /** Checks the data of a known type. */
  validateData(type: string, data: unknown, seq: number | undefined): void {
    const check = this.shapes.get(type);
    if (check === undefined) isObject(data, 'data', seq);
    else check(data, 'data', seq);
  }
}

export function isValidTypeName(type: string): boolean {
  return TYPE_NAME.test(type);
}

export const ALL_CORE_TYPES: readonly string[] = [...SURFACE_TYPES, ...CORE_LOG_ONLY_TYPES];
