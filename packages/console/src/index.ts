/**
 * The person's pages of a Gatehouse server, as a web-standard handler a
 * host mounts: approvals, kill switches, MCP tokens, the audit log, and
 * sign-in (the product's own, or {@link passwordSignIn}).
 *
 * @packageDocumentation
 */
export type { Console } from './console.js';
export { createConsole } from './console.js';
export { html } from './internal/html.js';
export { CONSOLE_HEADERS } from './internal/security.js';
export type {
  ActionWords,
  Branding,
  ConsoleHandler,
  ConsoleModule,
  ConsoleOptions,
  ConsolePage,
  ConsolePerson,
  ConsoleRequest,
  ConsoleRoute,
  ConsoleSignIn,
  ConsoleWorkspace,
  FormFields,
  Grant,
  GrantDirectory,
  Html,
  PersonNames,
  SignedIn,
  SignInContext,
  SignInThrottleOptions,
  TokenOptions,
} from './options.js';
export type { OpenedSession, PasswordAccounts, PasswordSignInOptions } from './signIn/password.js';
export { passwordSignIn, SIGN_IN_FAILED } from './signIn/password.js';
