// What an adapter's render keeps from one call to the next: the wire form of each message,
// keyed by the message object. The spine hands the same object for the same surface node on
// every call (spine/render-surface.ts, SurfaceRenderCache), so a call converts only the
// messages that are new, and the request writer finds the same wire objects, whose JSON it
// has kept. A render is still pure: what is kept is what the same message converts to, and
// nothing kept is ever changed after it is made (a cache breakpoint marks a copy).

/** Per renderer version, a memo of type T (each adapter says what it keeps). */
export class RenderMemos<T> {
  private readonly byVersion = new Map<string, T>();

  constructor(private readonly create: () => T) {}

  of(version: string): T {
    let memo = this.byVersion.get(version);
    if (memo === undefined) {
      memo = this.create();
      this.byVersion.set(version, memo);
    }
    return memo;
  }
}

/** A run of messages converted together (merged turns, a run's images): kept under its first message, with its members. */
export interface RunMemo<T> {
  readonly members: readonly object[];
  readonly value: T;
}

/** The value kept for exactly this run of messages, or a new one made by `make` and kept. */
export function memoizedRun<T>(memo: WeakMap<object, RunMemo<T>>, members: readonly object[], make: () => T): T {
  const first = members[0] as object;
  const kept = memo.get(first);
  if (kept !== undefined && kept.members.length === members.length && kept.members.every((member, index) => member === members[index])) {
    return kept.value;
  }
  const value = make();
  memo.set(first, { members: [...members], value });
  return value;
}

/** The value kept for `key`, or a new one made by `make` and kept. */
export function memoized<K extends object, T>(memo: WeakMap<K, T> | undefined, key: K, make: () => T): T {
  if (memo === undefined) return make();
  let value = memo.get(key);
  if (value === undefined) {
    value = make();
    memo.set(key, value);
  }
  return value;
}
