// The typed errors of shadowlog. Every error thrown on purpose is a ShadowlogError with a
// stable `code`; callers branch on the code or the class, never on the message.

const marker = Symbol.for('shadowlog.error');

/** A class of shadowlog error, as `isInstance` is called on it. */
type ErrorClass<T> = abstract new (...args: never[]) => T;

/** The names of a class and its ancestors up to ShadowlogError: the identity `isInstance` checks. */
function classNames(target: ErrorClass<unknown>): readonly string[] {
  const names: string[] = [];
  for (let current: unknown = target; typeof current === 'function' && current !== Error; current = Object.getPrototypeOf(current)) {
    names.push(current.name);
    if (current === ShadowlogError) break;
  }
  return names;
}

/** The base of every error shadowlog throws on purpose: a stable `code` to branch on, and a message that says what to do. */
export class ShadowlogError extends Error {
  readonly code: string;
  /** The error's class names, most derived first; compared by name, so a second copy of the package agrees. */
  readonly [marker]: readonly string[];

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
    this[marker] = classNames(new.target);
  }

  /**
   * True for an error of this class or a subclass, even one thrown by a second copy of the
   * package: `ShadowlogError.isInstance` accepts any shadowlog error,
   * `ConcurrencyError.isInstance` only concurrency errors.
   */
  static isInstance<T>(this: ErrorClass<T>, value: unknown): value is T {
    if (typeof value !== 'object' || value === null) return false;
    const names = (value as Record<symbol, unknown>)[marker];
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class isInstance is called on, a subclass included.
    return Array.isArray(names) && names.includes(this.name);
  }
}

/** A caught value's message, for a failure that names its cause: an error's message, or the value as a string. */
export function messageOf(error: unknown): string {
  return ShadowlogError.isInstance(error) || error instanceof Error ? error.message : String(error);
}

/** A session id that could not safely name a session, a database row or a file. */
export class InvalidSessionIdError extends ShadowlogError {
  readonly sessionId: string;
  constructor(sessionId: unknown) {
    const shown =
      typeof sessionId === 'string' ? JSON.stringify(sessionId.length > 80 ? `${sessionId.slice(0, 80)}…` : sessionId) : typeof sessionId;
    super(
      'INVALID_SESSION_ID',
      `expected a session id matching [A-Za-z0-9][A-Za-z0-9._-]{0,127}, found ${shown}; use letters, digits, '.', '_' and '-' only, starting with a letter or digit`,
    );
    this.sessionId = typeof sessionId === 'string' ? sessionId : String(sessionId);
  }
}

/** An event whose envelope or data does not have the shape format version 1 requires. */
export class InvalidEventError extends ShadowlogError {
  readonly seq: number | undefined;
  readonly field: string;
  constructor(field: string, expected: string, found: string, seq?: number) {
    super('INVALID_EVENT', `${seq === undefined ? 'event' : `event ${seq}`}: ${field} must be ${expected}, found ${found}`);
    this.field = field;
    this.seq = seq;
  }
}

/** A type this reader does not know, on an event that is not marked `ignorable`. */
export class UnknownEventTypeError extends ShadowlogError {
  readonly type: string;
  readonly seq: number;
  constructor(type: string, seq: number) {
    super(
      'UNKNOWN_EVENT_TYPE',
      `event ${seq} has type ${JSON.stringify(type)}, which this reader does not know and which is not marked ignorable; upgrade shadowlog, or register the type if your code defines it`,
    );
    this.type = type;
    this.seq = seq;
  }
}

/** Which rule of SPEC §3 a surface operation broke. */
export type SurfaceOpRule =
  | 'malformed'
  | 'not-surface-type'
  | 'not-current'
  | 'not-before'
  | 'out-of-order'
  | 'sources-malformed'
  | 'sources-missing'
  | 'sources-foreign'
  | 'splits-tool-pair'
  | 'tool-result-replacement'
  | 'tool-call-unknown'
  | 'tool-call-duplicate'
  | 'system-head'
  | 'sources-metering';

/** A SurfaceOp (or an append) that SPEC §3 forbids. Nothing was written. */
export class SurfaceOpError extends ShadowlogError {
  readonly rule: SurfaceOpRule;
  readonly seq: number;
  /** Shadowed surface nodes that `sourceEventSeqs` failed to list (rule `sources-missing`). */
  readonly missingSeqs: readonly number[];
  constructor(rule: SurfaceOpRule, seq: number, message: string, missingSeqs: readonly number[] = []) {
    super('INVALID_SURFACE_OP', `event ${seq}: ${message}`);
    this.rule = rule;
    this.seq = seq;
    this.missingSeqs = missingSeqs;
  }
}

/** An append that expected a different next seq than the log has: somebody else wrote first. */
export class ConcurrencyError extends ShadowlogError {
  readonly sessionId: string;
  readonly expected: number;
  readonly actual: number;
  constructor(sessionId: string, expected: number, actual: number) {
    super(
      'CONCURRENCY',
      `session ${sessionId}: expected next seq ${expected}, found ${actual}; another writer appended first, so re-read the log and try again`,
    );
    this.sessionId = sessionId;
    this.expected = expected;
    this.actual = actual;
  }
}

/** A session that another live process owns. */
export class SessionBusyError extends ShadowlogError {
  readonly sessionId: string;
  readonly owner: string;
  constructor(sessionId: string, owner: string) {
    super(
      'SESSION_BUSY',
      `session ${sessionId} is owned by ${owner}; only one live process may write a session. Wait for it to finish, or stop it`,
    );
    this.sessionId = sessionId;
    this.owner = owner;
  }
}

export class SessionNotFoundError extends ShadowlogError {
  readonly sessionId: string;
  constructor(sessionId: string) {
    super('SESSION_NOT_FOUND', `no session ${sessionId} in this store; list the sessions with \`shadowlog sessions\``);
    this.sessionId = sessionId;
  }
}

export class SessionExistsError extends ShadowlogError {
  readonly sessionId: string;
  constructor(sessionId: string, detail: string) {
    super('SESSION_EXISTS', `session ${sessionId} already exists in this store ${detail}`);
    this.sessionId = sessionId;
  }
}

/** A seq that is not in the log (yet). */
export class SeqOutOfRangeError extends ShadowlogError {
  readonly seq: number;
  readonly nextSeq: number;
  constructor(seq: number, nextSeq: number) {
    super('SEQ_OUT_OF_RANGE', `expected a seq from 0 to ${nextSeq - 1}, found ${seq}`);
    this.seq = seq;
    this.nextSeq = nextSeq;
  }
}

/** A stored or imported log that is damaged: a bad line, a broken hash chain, a gap. */
export class CorruptLogError extends ShadowlogError {
  readonly line: number | undefined;
  readonly seq: number | undefined;
  constructor(message: string, where: { line?: number; seq?: number } = {}, options?: { cause?: unknown }) {
    super('CORRUPT_LOG', where.line === undefined ? message : `line ${where.line}: ${message}`, options);
    this.line = where.line;
    this.seq = where.seq;
  }
}

/**
 * An event whose stored hash is not the hash recomputed over the hash before it and its own
 * envelope: the event (or the chain before it) was changed after it was written.
 */
export class HashChainError extends CorruptLogError {
  declare readonly seq: number;
  readonly storedHash: string;
  readonly recomputedHash: string;
  constructor(seq: number, storedHash: string, recomputedHash: string, message?: string, options?: { cause?: unknown }) {
    super(
      message ??
        `event ${seq}: the hash chain is broken (stored ${storedHash.slice(0, 12)}…, recomputed ${recomputedHash.slice(0, 12)}…); the event was changed after it was written`,
      { seq },
      options,
    );
    this.storedHash = storedHash;
    this.recomputedHash = recomputedHash;
  }
}

/** A session written in a format version newer than this reader knows. */
export class FormatVersionError extends ShadowlogError {
  readonly seq: number | undefined;
  readonly found: number;
  readonly supported: number;
  constructor(found: number, supported: number, seq?: number) {
    super(
      'FORMAT_TOO_NEW',
      `${seq === undefined ? 'session/start' : `event ${seq} (session/start)`} says format version ${found}, but this shadowlog reads format versions up to ${supported}; upgrade shadowlog to read this session`,
    );
    this.seq = seq;
    this.found = found;
    this.supported = supported;
  }
}

/** A configuration value or option that is out of range, of the wrong type, or unknown. */
export class ConfigError extends ShadowlogError {
  readonly key: string;
  constructor(key: string, message: string) {
    super('INVALID_CONFIG', message);
    this.key = key;
  }
}

/** A fold used against its rules by the program (overlapping batches): a bug in the caller. */
export class FoldStateError extends ShadowlogError {
  constructor(message: string) {
    super('FOLD_STATE', message);
  }
}

/**
 * A fork point that would leave the branch an unsendable surface (SPEC §14): a tool call whose
 * result is not yet in the prefix, or a metering event whose replacement is not. Names the
 * nearest seqs before and after it that a branch can fork at. Nothing was written.
 */
export class ForkPointError extends ShadowlogError {
  readonly sessionId: string;
  readonly seq: number;
  /** The nearest valid fork seq before `seq`, if any. */
  readonly before: number | undefined;
  /** The nearest valid fork seq after `seq`, if any. */
  readonly after: number | undefined;
  constructor(sessionId: string, seq: number, reason: string, before: number | undefined, after: number | undefined) {
    const nearest = [before === undefined ? undefined : `${before}`, after === undefined ? undefined : `${after}`].filter(
      (value) => value !== undefined,
    );
    super(
      'INVALID_FORK_POINT',
      `session ${sessionId} cannot be forked at seq ${seq}: ${reason}; ${
        nearest.length === 0 ? 'the session has no valid fork point' : `fork at ${nearest.join(' or ')} instead (the nearest valid seqs)`
      }`,
    );
    this.sessionId = sessionId;
    this.seq = seq;
    this.before = before;
    this.after = after;
  }
}
