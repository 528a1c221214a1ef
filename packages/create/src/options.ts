/** Where the project keeps its data. */
export const STORES = ['memory', 'sqlite', 'postgres'] as const;
export type Store = (typeof STORES)[number];

/** What to create. */
export interface ProjectOptions {
  /** The folder to create the project in; it must not exist, or be empty. */
  readonly directory: string;
  /** The npm package name of the project. */
  readonly name: string;
  readonly store: Store;
  /** Mount the console (person approval of `delete_ticket`, switches, tokens, audit log). */
  readonly console: boolean;
}

/** What is asked when neither a flag nor a prompt says otherwise. */
export const DEFAULTS = Object.freeze({
  directory: 'gatehouse-server',
  store: 'sqlite',
  console: false,
} as const);

export const isStore = (value: string): value is Store => (STORES as readonly string[]).includes(value);
