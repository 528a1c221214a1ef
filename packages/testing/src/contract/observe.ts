import type { ContractHost } from './fixture.js';

/** The observable effects of a host at one moment: its rows and how many messages it sent. */
export interface EffectMark {
  readonly rows: string;
  readonly messages: number;
}

const sortKeys = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== 'object' || value === null) return value;
  const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(entries.map(([key, child]) => [key, sortKeys(child)]));
};

/**
 * JSON text with keys sorted at every level, for comparing values whatever
 * their key order. Unlike RFC 8785 it accepts any string (lone surrogates
 * included), since it compares what arrived rather than hashing it.
 */
export function stableJson(value: unknown): string {
  const plain: unknown = JSON.parse(JSON.stringify(value ?? null));
  return JSON.stringify(sortKeys(plain));
}

/** The stable JSON of a snapshot (key order and `undefined` members do not count). */
export function canonicalSnapshot(snapshot: unknown): string {
  return stableJson(snapshot);
}

/** Reads the host's rows and message count. */
export async function markEffects(host: ContractHost): Promise<EffectMark> {
  const [rows, messages] = await Promise.all([host.snapshot(), host.sentMessages()]);
  return { rows: canonicalSnapshot(rows), messages };
}

/**
 * What changed since `mark`, as sentences (`rows changed`, `1 message(s)
 * sent`); empty when nothing did. Audit rows do not count: a host may audit
 * refusals.
 */
export async function effectsSince(host: ContractHost, mark: EffectMark): Promise<string[]> {
  return changesBetween(mark, await markEffects(host));
}

/** What changed from `mark` to `now`, as {@link effectsSince} words it. */
export function changesBetween(mark: EffectMark, now: EffectMark): string[] {
  const changes: string[] = [];
  if (now.rows !== mark.rows) changes.push('rows changed');
  if (now.messages !== mark.messages) changes.push(`${now.messages - mark.messages} message(s) sent`);
  return changes;
}
