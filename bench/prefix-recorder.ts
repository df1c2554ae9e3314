// How much of each request is an unchanged prefix of the one before it: what a provider's
// prompt cache can reuse. Requests are compared as the canonical JSON of their message lists.

/** Consecutive requests compared as the canonical JSON of their message lists. */
export class PrefixRecorder {
  private previous: string | undefined;
  /** Per call after the first: the unchanged prefix, in characters, as a share of the later request. */
  readonly shares: number[] = [];
  prefixChars = 0;
  totalChars = 0;
  /** Calls whose request does not start with the whole previous request (a cache miss past the break). */
  breaks = 0;

  record(messagesJson: string): void {
    const previous = this.previous;
    this.previous = messagesJson;
    if (previous === undefined) return;
    const common = commonPrefixLength(previous, messagesJson);
    this.shares.push(common / messagesJson.length);
    this.prefixChars += common;
    this.totalChars += messagesJson.length;
    // The previous list less its closing bracket is a prefix of the next one when messages were only appended.
    if (common < previous.length - 1) this.breaks++;
  }

  /** The mean share over every call but the first (NaN before the second call). */
  get meanShare(): number {
    return this.shares.reduce((sum, share) => sum + share, 0) / this.shares.length;
  }
}

export function commonPrefixLength(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  let index = 0;
  while (index < length && a.charCodeAt(index) === b.charCodeAt(index)) index++;
  return index;
}
