// Exact arithmetic for ratios. A ratio is read as the decimal it prints as (0.16 is 16/100,
// not the binary double just above or below it), so products that are whole numbers on paper
// floor to those whole numbers: floor(744,000 × 0.16) is 119,040, never 119,039.

/** A non-negative decimal as an exact fraction: numerator / denominator, a power of ten. */
export interface DecimalFraction {
  readonly numerator: bigint;
  readonly denominator: bigint;
}

const DECIMAL = /^(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/;

/**
 * The exact decimal that `value` prints as. `Number#toString` gives the shortest decimal that
 * reads back as the same double, which is what a person wrote in a config file ("0.16"), so
 * this recovers the intended value instead of the binary approximation that stores it.
 */
export function decimalFraction(value: number): DecimalFraction {
  const match = DECIMAL.exec(String(value));
  // Only checked ratios reach here; NaN, infinities and negatives were refused by the config.
  if (match === null) return { numerator: 0n, denominator: 1n };
  const whole = match[1] ?? '0';
  const fraction = match[2] ?? '';
  const scale = fraction.length - Number(match[3] ?? '0');
  const digits = BigInt(whole + fraction);
  return scale >= 0
    ? { numerator: digits, denominator: 10n ** BigInt(scale) }
    : { numerator: digits * 10n ** BigInt(-scale), denominator: 1n };
}

/** floor(count × ratio), exactly, for a non-negative safe integer count and a ratio ≥ 0. */
export function floorTimes(count: number, ratio: number): number {
  const { numerator, denominator } = decimalFraction(ratio);
  return Number((BigInt(count) * numerator) / denominator);
}

/** Whether count × ratio ≤ limit, exactly (limit an integer). */
export function timesAtMost(count: number, ratio: number, limit: number): boolean {
  const { numerator, denominator } = decimalFraction(ratio);
  return BigInt(count) * numerator <= BigInt(limit) * denominator;
}

/**
 * The smallest integer window W with W × ratio ≤ W − reserve − headroom, i.e.
 * ceil((reserve + headroom) / (1 − ratio)): the window from which the ratio term is the smaller
 * one. Undefined when no window qualifies (ratio ≥ 1 and reserve + headroom > 0); 0 when
 * reserve + headroom is 0 (every window qualifies, and at ratio 1 the terms are always equal).
 */
export function smallestWindowWhereRatioDecides(ratio: number, reserve: number, headroom: number): bigint | undefined {
  const { numerator, denominator } = decimalFraction(ratio);
  const fixed = BigInt(reserve) + BigInt(headroom);
  const gap = denominator - numerator;
  if (gap <= 0n) return fixed === 0n ? 0n : undefined;
  const top = fixed * denominator;
  return (top + gap - 1n) / gap;
}

/** A decimal k / 10^places, as a number and with the places it was chosen at. */
export interface DecimalChoice {
  readonly value: number;
  readonly places: number;
}

/**
 * The largest decimal k / 10^p strictly below bound = numerator / denominator (positive
 * integers, numerator < denominator), with p the fewest places from 4 up that leave k ≥ 1.
 * Four places keep a suggestion readable; more appear only when the bound is that small.
 * The result is checked through its own decimal reading, so that a long k that the double
 * cannot carry exactly still gives a value whose exact reading stays below the bound.
 */
export function largestDecimalBelow(numerator: number, denominator: number): DecimalChoice {
  for (let places = 4; ; places += 1) {
    const scale = 10n ** BigInt(places);
    const ceiling = (BigInt(numerator) * scale + BigInt(denominator) - 1n) / BigInt(denominator);
    for (let digits = ceiling - 1n; digits >= 1n && digits >= ceiling - 3n; digits -= 1n) {
      const value = Number(`${digits}e-${places}`);
      const reading = decimalFraction(value);
      if (value > 0 && reading.numerator * BigInt(denominator) < BigInt(numerator) * reading.denominator) return { value, places };
    }
  }
}

/** count × ratio written out exactly as a decimal ("838860.8"), for messages. */
export function exactProductText(count: number, ratio: number): string {
  const { numerator, denominator } = decimalFraction(ratio);
  const product = BigInt(count) * numerator;
  const places = String(denominator).length - 1;
  if (places === 0) return String(product);
  const digits = String(product).padStart(places + 1, '0');
  const fraction = digits.slice(-places).replace(/0+$/, '');
  const whole = digits.slice(0, -places);
  return fraction === '' ? whole : `${whole}.${fraction}`;
}
