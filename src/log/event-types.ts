// The registry of event types a reader knows, with the data shape of each (SPEC §2).

import { coreShapeOf, isCoreType } from './core-shapes.js';
import { InvalidEventError } from './errors.js';
import { CORE_LOG_ONLY_TYPES, FORMAT_VERSION, type FormatVersion, SURFACE_TYPES } from './event.js';
import { validateCoreData } from './event-data.js';
import { type Checker, isObject } from './shape.js';

const TYPE_NAME = /^[a-z][a-z0-9-]*\/[a-z][a-z0-9-]*$/;

export interface EventTypeDefinition {
  readonly type: string;
  /** Checks `data`; throws InvalidEventError. Omit to accept any object. */
  readonly validate?: (data: Record<string, unknown>, seq: number | undefined) => void;
  /**
   * Checks `data` of an event being appended now, after `validate`: rules that events already
   * stored may break (a token count a writer once got wrong), so that no writer appends such an
   * event again while a log that holds one still reads. verify reports a stored event that
   * breaks them as a warning. Omit when there are none.
   */
  readonly validateNew?: (data: Record<string, unknown>, seq: number | undefined) => void;
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
  private readonly newShapes = new Map<string, Checker>();
  private readonly metering = new Map<string, (data: Record<string, unknown>) => readonly number[]>();

  constructor(extensions: readonly EventTypeDefinition[] = []) {
    for (const extension of extensions) this.register(extension);
  }

  register(definition: EventTypeDefinition): void {
    if (!TYPE_NAME.test(definition.type)) {
      throw new InvalidEventError('type', 'a namespaced noun/verb name in lower case', JSON.stringify(definition.type));
    }
    if (isCoreType(definition.type)) {
      throw new InvalidEventError('type', 'a type that is not one of the core types', JSON.stringify(definition.type));
    }
    const validate = definition.validate;
    this.shapes.set(definition.type, (value, field, seq) => {
      isObject(value, field, seq);
      validate?.(value as Record<string, unknown>, seq);
    });
    const validateNew = definition.validateNew;
    if (validateNew === undefined) this.newShapes.delete(definition.type);
    else this.newShapes.set(definition.type, (value, _field, seq) => validateNew(value as Record<string, unknown>, seq));
    if (definition.shadowedSeqs !== undefined) this.metering.set(definition.type, definition.shadowedSeqs);
    else this.metering.delete(definition.type);
  }

  isKnown(type: string): boolean {
    return isCoreType(type) || this.shapes.has(type);
  }

  /** Is `type` a metering event here (one with shadowedSeqs)? */
  isMetering(type: string): boolean {
    return this.metering.has(type);
  }

  /** For a metering event (see EventTypeDefinition.shadowedSeqs), the nodes its replacement shadows; else undefined. */
  shadowedSeqsOf(type: string, data: Record<string, unknown>): readonly number[] | undefined {
    return this.metering.get(type)?.(data);
  }

  /** Checks the data of a known type, in the session's format version (core types differ between versions). */
  validateData(type: string, data: unknown, seq: number | undefined, version: FormatVersion = FORMAT_VERSION): void {
    if (coreShapeOf(type, version) !== undefined) {
      validateCoreData(type, data, seq, version);
      return;
    }
    const check = this.shapes.get(type);
    if (check === undefined) isObject(data, 'data', seq);
    else check(data, 'data', seq);
  }

  /**
   * The checks only new events are held to (EventTypeDefinition.validateNew), for data that
   * passed validateData: every draft is checked so before it is appended. Throws InvalidEventError.
   */
  validateNewData(type: string, data: Record<string, unknown>, seq: number | undefined): void {
    this.newShapes.get(type)?.(data, 'data', seq);
  }
}

export function isValidTypeName(type: string): boolean {
  return TYPE_NAME.test(type);
}

export const ALL_CORE_TYPES: readonly string[] = [...SURFACE_TYPES, ...CORE_LOG_ONLY_TYPES];
