import type { RawToolResult } from './envelope.js';

/** One `tools/call` result seen during a run. */
export interface LedgerEntry {
  readonly tool: string;
  readonly args: unknown;
  readonly result: RawToolResult;
}

/**
 * Every `tools/call` result a contract run has seen, from every check, so the
 * envelope checks (I18, I19) judge all of them, not only their own calls.
 */
export class ResultLedger {
  readonly #entries: LedgerEntry[] = [];

  /** Records one result. */
  record(entry: LedgerEntry): void {
    this.#entries.push(entry);
  }

  /** The results seen so far, for one tool or for all. */
  entries(tool?: string): readonly LedgerEntry[] {
    return tool === undefined ? [...this.#entries] : this.#entries.filter((e) => e.tool === tool);
  }
}
