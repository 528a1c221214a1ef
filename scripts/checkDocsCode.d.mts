/** One TypeScript block of a page and how it is checked. */
export interface DocsBlock {
  readonly page: string;
  /** The line of its opening fence (1-based). */
  readonly line: number;
  readonly text: string;
  readonly kind: 'quoted' | 'compiled' | 'fragment';
  readonly quote: { readonly file: string; readonly name: string } | undefined;
  readonly context: string | undefined;
}
/** The TypeScript blocks of a page: where, how they are checked, their text. */
export declare function blocksOf(page: string): DocsBlock[];
/** Checks the blocks of the given pages; returns the failures, each naming page:line. */
export declare function checkPages(pages: readonly string[]): {
  readonly failures: string[];
  readonly counts: { readonly quoted: number; readonly compiled: number; readonly fragment: number };
  readonly fragments: string[];
};
