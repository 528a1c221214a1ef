const USAGE_ERROR = Symbol.for('gatehouse.create.UsageError');

/**
 * A mistake in what the person asked for (a bad flag, name or directory):
 * the command prints the message and the usage, and exits with status 2.
 */
export class UsageError extends Error {
  readonly [USAGE_ERROR] = true;

  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }

  /** Brand check that survives the package being loaded twice. */
  static is(value: unknown): value is UsageError {
    return (
      typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[USAGE_ERROR] === true
    );
  }
}
