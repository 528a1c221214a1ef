import type { Credentials, Switches } from '@gatehousejs/access';
import type {
  Approvals,
  AuditStore,
  CredentialDirectory,
  CredentialStore,
  Logger,
  RateBucketStore,
} from '@gatehousejs/core';

/** A workspace (tenant) a signed-in person works in, as they stand there now. */
export interface ConsoleWorkspace<TRight extends string = string> {
  readonly id: string;
  readonly name: string;
  /** Owners see and change the workspace's switches, all its tokens and its audit log. */
  readonly owner: boolean;
  /** The person's role there in the product's words (`manager`), shown beside the name where one is chosen. */
  readonly role?: string | undefined;
  /** The rights the person holds there now (their role, their active flag), never a token's. */
  readonly rights: readonly TRight[];
}

/** The person signed in to the product, as the host resolves them for a request. */
export interface ConsolePerson<TRight extends string = string> {
  readonly id: string;
  /** Shown in the header and on the pages' records. */
  readonly name: string;
  /**
   * A secret unique to this sign-in (the product's session id or token).
   * The console binds its CSRF tokens and one-time messages to it; it is
   * never rendered, logged or stored.
   */
  readonly session: string;
  /** When they signed in (epoch ms), for a page that asks for a recent sign-in. */
  readonly signedInAt?: number | undefined;
  /** May turn the global kill switch on and off. */
  readonly operator?: boolean | undefined;
  /** The workspaces they work in now, their home workspace first. */
  readonly workspaces: readonly ConsoleWorkspace<TRight>[];
}

/** The product's name and logo in the console's header and titles. */
export interface Branding {
  readonly productName: string;
  /** An image URL of this origin (the CSP allows no other), shown 24 px high. */
  readonly logoUrl?: string | undefined;
}

/** A request's person and how to sign one in: the product's sign-in, or {@link passwordSignIn}. */
export interface ConsoleSignIn<TRight extends string = string> {
  /** The signed-in person of a request, or `undefined` (the console then sends them to `signInUrl`). */
  personOf(request: Request): Promise<ConsolePerson<TRight> | undefined>;
  /** Where to sign in, coming back to `returnTo` (a same-origin path) afterwards. */
  signInUrl(returnTo: string): string;
  /**
   * Routes the sign-in itself serves inside the console (the password and
   * link sign-in's `/signin`, `/signout`); a product's own sign-in has none.
   */
  readonly routes?: ConsoleModule<TRight> | undefined;
  /** A console path that signs out on a POST (with the CSRF token); the header then shows "Sign out". */
  readonly signOutPath?: string | undefined;
  /**
   * The product's session cookie names, as sent (`desk_session`). A request
   * carrying one of them twice is refused before `personOf` reads either: the
   * second copy was planted by another port of the same host.
   */
  readonly cookies?: readonly string[] | undefined;
}

/** What the console tells a sign-in it serves. */
export interface SignInContext {
  /** The console's public origin now. */
  origin(): string;
  /** A console path with the base path in front. */
  path(path: string): string;
  /** A cookie's base name with the console's prefix (`page` → `console_page`). */
  cookie(name: string): string;
  /** Now, in epoch milliseconds. */
  now(): number;
  readonly logger: Logger;
}

/**
 * The console's record of a person's names for other records (who changed
 * a switch, who owns a token); `undefined` when unknown.
 */
export type PersonNames = (personId: string) => Promise<string | undefined>;

/** MCP tokens on the Tokens page: who may mint them and what a token may be limited to. */
export interface TokenOptions {
  /** Named toolsets a token may be limited to (none: every tool its rights allow). */
  readonly toolsets?: readonly string[] | undefined;
  /** The longest lifetime a minted token may have, in days; default 365. */
  readonly maxDays?: number | undefined;
}

/** How the Approvals pages word one tool's action. */
export interface ActionWords {
  /** The approve button after "Approve: " (`Delete booking`); default the tool's title. */
  readonly verb?: string | undefined;
  /** What happened once approved (`Booking deleted`); default `sent`. */
  readonly done?: string | undefined;
}

/** A grant another package lists on the Tokens page beside the MCP tokens (an OAuth client's access). */
export interface Grant {
  readonly id: string;
  /** The client application, as the person named it on consent. */
  readonly clientName: string;
  readonly personId: string;
  readonly workspaceId: string;
  readonly rights: readonly string[];
  readonly createdAt: number;
  readonly expiresAt: number | null;
  readonly revokedAt: number | null;
}

/**
 * Where a sign-in package (OAuth for MCP clients) lists the grants a person
 * gave and ends one; the Tokens page shows them as "Connected apps".
 */
export interface GrantDirectory {
  /** Grants in a workspace (all of them for an owner, else the person's own), newest first. */
  list(query: {
    readonly workspaceId: string;
    readonly personId?: string | undefined;
  }): Promise<readonly Grant[]>;
  /** Ends a grant and every token issued under it; reports whether it changed anything. Audited by the package. */
  revoke(id: string, by: { readonly actorId: string; readonly channel: string }): Promise<boolean>;
}

/** Everything `createConsole` takes. */
export interface ConsoleOptions<TRight extends string = string> {
  /**
   * The console's public origin (`https://console.example.com`), or a function
   * of it for an origin known only once the server listens. POSTs must come
   * from it (or from the request's own origin); cookies are `Secure` and
   * `__Host-` prefixed when it is https.
   */
  readonly origin: string | (() => string);
  /** Where the console is mounted, `''` (the root, default) or a path like `/console`. */
  readonly basePath?: string | undefined;
  readonly branding?: Branding | undefined;
  /**
   * Who is signed in and how to sign in: the product's own sign-in, or a
   * sign-in the console serves (`passwordSignIn(…)`), which the console
   * hands its origin, cookie names and paths.
   */
  readonly signIn: ConsoleSignIn<TRight> | ((context: SignInContext) => ConsoleSignIn<TRight>);
  /** The Gatehouse server's approvals (`server.approvals`), when a tool needs a person's approval. */
  readonly approvals?: Approvals<TRight> | undefined;
  /** The audited credential service of `@gatehousejs/access` (mint, revoke, recognise MCP tokens). */
  readonly credentials: Credentials<TRight>;
  /** The credential store, which lists tokens for the Tokens page (`@gatehousejs/stores` stores do). */
  readonly credentialStore: CredentialStore & CredentialDirectory;
  /** The audited kill switches of `@gatehousejs/access`. */
  readonly switches: Switches;
  /** The audit store the Audit page reads, with its filters (`@gatehousejs/stores` stores have them). */
  readonly audit: AuditStore;
  /** Names of people for the records the pages show; default: their ids. */
  readonly personNames?: PersonNames | undefined;
  /** The IANA time zone of a workspace: every time is shown in it, with the zone named. Default `UTC`. */
  readonly timeZoneOf?: ((workspaceId: string) => string | Promise<string>) | undefined;
  readonly tokens?: TokenOptions | undefined;
  /** How the Approvals pages word each tool's action, by tool name. */
  readonly actions?: Readonly<Record<string, ActionWords>> | undefined;
  /** Grants a sign-in package lists on the Tokens page. */
  readonly grants?: GrantDirectory | undefined;
  /** More pages served inside the console, with its layout, sign-in and protections (an OAuth consent screen). */
  readonly modules?: readonly ConsoleModule<TRight>[] | undefined;
  /** Where refusals and failures are logged (never a secret, a cookie or a form value); default silent. */
  readonly logger?: Logger | undefined;
  /** A failure of a page (the console answers 500 naming no cause). */
  readonly onError?: ((error: Error) => void) | undefined;
  /** The clock; tests pin it. Default the system time. */
  readonly clock?: (() => Date) | undefined;
  /**
   * The first part of the console's cookie names (`<prefix>_flash`, …);
   * default `console`. Letters, digits and `_` only.
   */
  readonly cookiePrefix?: string | undefined;
}

/** The fields of a posted form. */
export interface FormFields {
  /** The last value of a field, or `undefined`. */
  get(name: string): string | undefined;
  /** Every value of a repeated field, in order. */
  all(name: string): readonly string[];
}

/** A signed-in person with the CSRF token of their session, as a page handler sees them. */
export interface SignedIn<TRight extends string = string> extends ConsolePerson<TRight> {
  /** This session's CSRF token: every form carries it as `csrf` ({@link ConsolePage.csrfField}). */
  readonly csrf: string;
  /** Their home workspace (the first of `workspaces`). */
  readonly home: ConsoleWorkspace<TRight>;
}

/** Rendered HTML: every interpolation of the console's `html` tag escaped and cleaned. */
export type Html =
  | import('hono/utils/html').HtmlEscapedString
  | Promise<import('hono/utils/html').HtmlEscapedString>;

/** What a module's page handler receives. */
export interface ConsoleRequest<TRight extends string = string> {
  readonly request: Request;
  readonly url: URL;
  /** Route parameters (`/consent/:uid` → `uid`). */
  readonly params: Readonly<Record<string, string>>;
  /** The signed-in person; `undefined` only on a module route declared `public`. */
  readonly person: SignedIn<TRight> | undefined;
  /** A POST's form, read within 16 KiB, its CSRF token checked. */
  readonly form: FormFields | undefined;
  /** How to answer: pages in the console's layout, redirects with a one-time message. */
  readonly page: ConsolePage;
}

/** Answers a module page with the console's layout, escaping and headers. */
export interface ConsolePage {
  /** The console's `html` tag: every interpolation escaped, and cleaned of hiding characters (I16). */
  readonly html: (strings: TemplateStringsArray, ...values: unknown[]) => Html;
  /** A page in the console's layout. */
  render(status: number, parts: { title: string; body: Html; flash?: string | undefined }): Promise<Response>;
  /** A page that says why nothing was shown, and what to do. */
  error(status: number, title: string, message: string): Promise<Response>;
  /** A 303 to a console path (base path added), with a one-time message for the next page. */
  seeOther(path: string, message?: string): Response;
  /** A 303 to any URL (an OAuth redirect back to a client). */
  redirect(url: string): Response;
  /** The hidden CSRF field of the signed-in person's session. */
  csrfField(): Html;
  /** A console path with the base path in front. */
  path(path: string): string;
  /** A time in a workspace's zone, the zone named, UTC in its title. */
  time(ms: number, workspaceId: string): Promise<Html>;
  /** The sign-in page's URL, returning here afterwards. */
  signInUrl(returnTo: string): string;
}

/** A page handler of a module. */
export type ConsoleHandler<TRight extends string = string> = (
  request: ConsoleRequest<TRight>,
) => Response | Promise<Response>;

/** One route of a module. */
export interface ConsoleRoute<TRight extends string = string> {
  readonly method: 'GET' | 'POST';
  /** A path under the console's base path, with `:name` parameters (`/oauth/consent/:uid`). */
  readonly path: string;
  readonly handler: ConsoleHandler<TRight>;
  /** Served without sign-in (the sign-in page itself). POSTs still need Origin and a CSRF token. */
  readonly public?: boolean | undefined;
}

/** Pages a host or another package adds to the console. */
export interface ConsoleModule<TRight extends string = string> {
  readonly name: string;
  readonly routes: readonly ConsoleRoute<TRight>[];
  /** A link in the console's navigation, when the module has a page to list. */
  readonly nav?: { readonly label: string; readonly path: string } | undefined;
  /**
   * Cookie names of the module (or of a library behind it) that a request
   * may carry only once: a second copy was planted by another origin of the
   * host, and the console refuses such a request before any page reads it.
   */
  readonly cookies?: readonly string[] | undefined;
}

/** The throttle of {@link passwordSignIn}: failures per account and per client address in a window. */
export interface SignInThrottleOptions {
  /** Shared rate buckets (`stores.rateBuckets`), so every replica counts the same failures. */
  readonly store: RateBucketStore;
  /** Failures allowed per account per window; default 5. */
  readonly accountFailures?: number | undefined;
  /** Failures allowed per client address per window; default 20 (offices share an address). */
  readonly addressFailures?: number | undefined;
  /** The window in milliseconds; default 15 minutes. */
  readonly windowMs?: number | undefined;
}
