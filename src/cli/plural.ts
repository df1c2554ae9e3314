// A count with its noun agreeing in number: "1 call", "2 calls", "1 summary", "3 summaries".

export interface PluralOptions {
  /** The plural when adding "s" is wrong ("summaries"). */
  readonly plural?: string;
  /** Write the count with thousands separators ("1,544 events"), as most of the output does. */
  readonly separators?: boolean;
}

/** `count` and `noun`, the noun in the plural unless the count is exactly 1. */
export function plural(count: number, noun: string, options: PluralOptions = {}): string {
  const figure = options.separators === true ? count.toLocaleString('en-US') : String(count);
  return `${figure} ${count === 1 ? noun : (options.plural ?? `${noun}s`)}`;
}
