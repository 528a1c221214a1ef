import { ToolError } from '@gatehousejs/core';
import type { Temporal } from 'temporal-polyfill';
import { z } from 'zod';
import { readTime } from './internal/readTime.js';

/**
 * A time as a caller sends it: `{ local, zone }`, `"<local>[<Zone>]"`,
 * `"<local> <Zone>"`, or ISO 8601 with an offset (optionally followed by `[<Zone>]`).
 */
export type TimeInputValue = string | { readonly local: string; readonly zone: string };

/** Options of {@link timeInput}. */
export interface TimeInputOptions {
  /** Replaces the default schema description. */
  readonly description?: string;
}

const DESCRIPTION =
  'A point in time: {"local": "2026-03-29T09:30", "zone": "Europe/Berlin"}, "2026-03-29T09:30[Europe/Berlin]", or ISO 8601 with an offset, "2026-03-29T09:30:00+02:00". A time without zone or offset is refused.';

const FIX = 'Send the time again in one of the forms or with one of the options named in the message.';

/**
 * Reads a time a caller sent into a `Temporal.ZonedDateTime` (I20).
 *
 * Accepts a local date-time with an IANA zone, or ISO 8601 with an offset.
 * Refuses, with a `ToolError` `invalid_arguments` whose message names the
 * options: a bare local time (no zone, no offset), a local time that does
 * not exist (DST gap: the minute before and the instant after are offered),
 * a local time that happens twice (DST overlap: both offsets are offered),
 * an unknown zone (close matches are offered), an impossible date, and an
 * offset that contradicts the zone. The result's zone is the IANA zone, or
 * the fixed offset (`UTC` for `Z`) when only an offset was sent; store it
 * as `epochMilliseconds` + `timeZoneId`, or as its `toString()`.
 *
 * @example
 * parseTime({ local: '2026-03-30T09:30', zone: 'Europe/Berlin' }).toString();
 * // '2026-03-30T09:30:00+02:00[Europe/Berlin]'
 */
export function parseTime(input: TimeInputValue): Temporal.ZonedDateTime {
  const outcome = readTime(input);
  if (outcome.ok) return outcome.value;
  throw new ToolError({ code: 'invalid_arguments', message: outcome.message, fix: FIX });
}

/**
 * A zod schema for a time argument: validates like {@link parseTime} and
 * outputs a `Temporal.ZonedDateTime`; its issues carry the same messages.
 * For a JSON Schema of what callers send, convert with `io: 'input'`.
 *
 * @example
 * const args = z.object({ starts_at: timeInput() }).strict();
 * args.parse({ starts_at: '2026-03-30T09:30:00+02:00' }).starts_at.epochMilliseconds;
 */
export function timeInput(options: TimeInputOptions = {}): z.ZodType<Temporal.ZonedDateTime, TimeInputValue> {
  const localWithZone = z
    .object({
      local: z.string().describe('Local date-time without offset, e.g. "2026-03-29T09:30".'),
      zone: z.string().describe('IANA time zone, e.g. "Europe/Berlin".'),
    })
    .strict();
  const text = z.string().describe('"2026-03-29T09:30[Europe/Berlin]" or "2026-03-29T09:30:00+02:00".');
  const messageFor = (issue: { readonly input?: unknown }) => {
    const outcome = readTime(issue.input);
    return outcome.ok ? undefined : outcome.message;
  };
  return z
    .union([text, localWithZone], { error: messageFor })
    .transform((value, context) => {
      const outcome = readTime(value);
      if (outcome.ok) return outcome.value;
      context.issues.push({ code: 'custom', message: outcome.message, input: value });
      return z.NEVER;
    })
    .describe(options.description ?? DESCRIPTION);
}
