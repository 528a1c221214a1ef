/** Rounding of a result that falls between two minor units. */
export type RoundingMode = 'half-even' | 'half-up';

const DECIMAL = /^(-)?(\d+)(?:\.(\d+))?$/;

/** A decimal string as an integer and a scale: `"-12.30"` → `{ units: -1230n, scale: 2 }`. */
export function parseDecimal(text: string): { units: bigint; scale: number } | undefined {
  const match = DECIMAL.exec(text);
  if (match === null) return undefined;
  const [, sign, whole = '', fraction = ''] = match;
  const units = BigInt(whole + fraction);
  return { units: sign === '-' ? -units : units, scale: fraction.length };
}

/** Powers of ten as bigint. */
export function pow10(exponent: number): bigint {
  return 10n ** BigInt(exponent);
}

/**
 * `numerator / denominator` rounded to an integer: `half-even` sends ties
 * to the even neighbour, `half-up` sends ties away from zero. `denominator` > 0.
 */
export function divRound(numerator: bigint, denominator: bigint, mode: RoundingMode): bigint {
  const quotient = numerator / denominator;
  const remainder = numerator % denominator;
  if (remainder === 0n) return quotient;
  const away = numerator < 0n ? quotient - 1n : quotient + 1n;
  const twice = (remainder < 0n ? -remainder : remainder) * 2n;
  if (twice > denominator) return away;
  if (twice < denominator) return quotient;
  return mode === 'half-up' || quotient % 2n !== 0n ? away : quotient;
}

/** Integer minor units as a decimal string: `(-1230n, 2)` → `"-12.30"`. */
export function minorToDecimal(minor: bigint, exponent: number): string {
  const sign = minor < 0n ? '-' : '';
  const digits = (minor < 0n ? -minor : minor).toString().padStart(exponent + 1, '0');
  if (exponent === 0) return sign + digits;
  return `${sign}${digits.slice(0, -exponent)}.${digits.slice(-exponent)}`;
}

/** A bigint as a safe integer; throws a `RangeError` naming `what` when it does not fit. */
export function toSafe(value: bigint, what: string): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < BigInt(Number.MIN_SAFE_INTEGER)) {
    throw new RangeError(`${what}: the result exceeds the safe integer range of minor units.`);
  }
  return Number(value);
}
