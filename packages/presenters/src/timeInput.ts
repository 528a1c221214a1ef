import { ConfigurationError, ToolError } from '@gatehousejs/core';
import type { Temporal } from 'temporal-polyfill';
import { z } from 'zod';
import { MAX_TIME_LENGTH, readTime, timeTooLong } from './internal/readTime.js';
import { MAX_ZONE_LENGTH, resolveZone, ZONE_CHARACTERS } from './internal/zones.js';

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
 * an unknown zone (close matches are offered), an impossible date, an
 * offset that contradicts the zone, and, before any parsing, a time string
 * or `local` over 64 characters or a zone name over 64 characters or with
 * characters other than `A-Z a-z 0-9 _ + - /`. The result's zone is the
 * IANA zone, or the fixed offset (`+02:00`, `+00:00` for `Z`) when only an
 * offset was sent: settle that into a zone with {@link withDefaultZone}
 * before storing `epochMilliseconds` + `timeZoneId`.
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
  const zoneMessage = (issue: { readonly input?: unknown }) => {
    const outcome = resolveZone(String(issue.input));
    return outcome.ok ? undefined : outcome.message;
  };
  const localWithZone = z
    .object({
      local: z
        .string()
        .max(MAX_TIME_LENGTH, { error: (issue) => timeTooLong('"local"', String(issue.input)) })
        .describe('Local date-time without offset, e.g. "2026-03-29T09:30".'),
      zone: z
        .string()
        .max(MAX_ZONE_LENGTH, { error: zoneMessage, abort: true })
        .regex(ZONE_CHARACTERS, { error: zoneMessage })
        .describe('IANA time zone, e.g. "Europe/Berlin".'),
    })
    .strict();
  const text = z
    .string()
    .max(MAX_TIME_LENGTH, { error: (issue) => timeTooLong('The time', String(issue.input)) })
    .describe('"2026-03-29T09:30[Europe/Berlin]" or "2026-03-29T09:30:00+02:00".');
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

/** Whether a time carries only the UTC offset it was sent with: its zone is a fixed offset such as `+02:00`. */
export function isOffsetOnly(time: Temporal.ZonedDateTime): boolean {
  return /^[+-]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?$/.test(time.timeZoneId);
}

/**
 * Settles the zone of a time a caller sent (I20): a time sent with an IANA
 * zone keeps it; a time sent with only a UTC offset (see {@link isOffsetOnly})
 * moves to `zone`, the zone the product keeps its times in (a workspace's,
 * a user's), at the same instant, even when the offset sent is not the
 * zone's offset at that instant. Throws a `ConfigurationError` for an
 * unknown `zone`.
 *
 * @example
 * withDefaultZone(parseTime('2026-03-30T09:30:00+02:00'), 'Europe/Berlin').toString();
 * // '2026-03-30T09:30:00+02:00[Europe/Berlin]'
 */
export function withDefaultZone(time: Temporal.ZonedDateTime, zone: string): Temporal.ZonedDateTime {
  const resolved = resolveZone(zone);
  if (!resolved.ok) throw new ConfigurationError(`withDefaultZone: ${resolved.message}`);
  return isOffsetOnly(time) ? time.withTimeZone(resolved.value) : time;
}
