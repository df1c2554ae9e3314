// What every way of counting tokens provides. Estimators (chars4, script-aware) approximate;
// tokenizers (o200k_base, cl100k_base, llama3) count exactly for their model families.

export type EstimatorName = 'chars4' | 'script-aware' | 'o200k_base' | 'cl100k_base' | 'llama3';

export interface TokenEstimator {
  readonly name: EstimatorName;
  /** True for a real tokenizer, false for a heuristic. */
  readonly exact: boolean;
  /** Tokens in `text`. Special-token text such as <|endoftext|> is counted as ordinary text. */
  countText(text: string): number;
}
