// The booking product served on a loopback port for browser tests: people
// signed in through the real sign-in form, the model's MCP client, and the
// rows tests assert on (pending actions, outbox, audit).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RawHttpClient } from '@gatehousejs/testing';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { launchBrowser, type TestBrowser } from '../../../../test/chromium.js';
import type { Structured } from '../fixtures/clients.js';
import { rawClient, structured } from '../fixtures/raw.js';
import { seededTemplate, type TestApp, type TestAppOptions, testApp } from '../fixtures/testApp.js';

/** What a describe block of browser tests shares: one browser and one seeded database to copy. */
export interface BrowserSuite {
  readonly browser: TestBrowser;
  readonly template: string;
}

/** Starts a browser and seeds a template before the block's tests; closes and removes both after. */
export function browserSuite(): BrowserSuite {
  const suite: { browser?: TestBrowser; template?: string; dir?: string } = {};
  beforeAll(async () => {
    suite.dir = mkdtempSync(join(tmpdir(), 'booking-browser-'));
    [suite.browser, suite.template] = await Promise.all([launchBrowser(), seededTemplate(suite.dir)]);
  });
  afterAll(async () => {
    await suite.browser?.close();
    if (suite.dir) rmSync(suite.dir, { recursive: true, force: true });
  });
  return suite as BrowserSuite;
}

/** The seeded people the browser tests sign in as. */
export const PEOPLE = {
  olivia: 'p_olivia',
  dan: 'p_dan',
  vera: 'p_vera',
  gina: 'p_gina',
} as const;

/** A served booking app on a fresh copy of the seeded template. */
export interface Site extends AsyncDisposable {
  readonly t: TestApp;
  /** The pages' and the MCP endpoint's origin, `http://127.0.0.1:<port>`. */
  readonly origin: string;
  readonly mcpUrl: URL;
  /** The model: a raw MCP client with a fresh token of `personId` (default Olivia, the owner). */
  model(personId?: string): Promise<RawHttpClient>;
  /** Signs `personId` in through the form at `/signin?return=…` and returns the page it lands on. */
  signIn(context: BrowserContext, personId: string, returnTo?: string): Promise<Page>;
  /** A person's e-mail and a password set for this test (the reset is audited like any other). */
  credentialsOf(personId: string): Promise<{ email: string; password: string }>;
  close(): Promise<void>;
}

/** Serves a booking app copied from `template` (see `seededTemplate`), with `settings` (a public URL, say). */
export async function openSite(
  template: string,
  settings: Omit<TestAppOptions, 'template'> = {},
): Promise<Site> {
  const t = await testApp({ ...settings, template });
  const serving = await t.serve();
  const origin = serving.mcpUrl.origin;
  const passwords = new Map<string, { email: string; password: string }>();
  const credentialsOf = async (personId: string) => {
    const known = passwords.get(personId);
    if (known) return known;
    const person = await t.app.people.byId(personId);
    if (!person) throw new Error(`The seed has no person ${personId}; pick one of PEOPLE.`);
    const password = await t.app.people.resetPassword(person, { actorId: 'ops', channel: 'cli' });
    const fresh = { email: person.email, password };
    passwords.set(personId, fresh);
    return fresh;
  };
  return {
    t,
    origin,
    mcpUrl: serving.mcpUrl,
    credentialsOf,
    async model(personId = PEOPLE.olivia) {
      const workspaceId = (await t.app.people.byId(personId))?.workspaceId ?? 'ws_acme';
      return rawClient(serving.mcpUrl, await t.mint({ personId, workspaceId }));
    },
    async signIn(context, personId, returnTo = '/approvals') {
      const { email, password } = await credentialsOf(personId);
      const page = await context.newPage();
      await page.goto(`${origin}/signin?return=${encodeURIComponent(returnTo)}`);
      await fillSignIn(page, email, password);
      return page;
    },
    close: () => t.close(),
    [Symbol.asyncDispose]: () => t.close(),
  };
}

/** Fills and submits the sign-in form on the page shown, and waits for the page it leads to. */
export async function fillSignIn(page: Page, email: string, password: string): Promise<void> {
  const form = page.locator('form[data-form=signin]');
  await form.locator('input[name=email]').fill(email);
  await form.locator('input[name=password]').fill(password);
  await Promise.all([
    page.waitForURL((url) => url.pathname !== '/signin'),
    form.getByRole('button', { name: 'Sign in' }).click(),
  ]);
}

/** A person action the model asked for: its preview, the approval page's URL and the pending action's id. */
export interface Requested {
  readonly preview: Structured;
  readonly approvalUrl: string;
  readonly id: string;
}

/** Calls an outward tool that needs a person; expects a preview naming the approval page. */
export async function request(
  model: RawHttpClient,
  tool: string,
  args: Record<string, unknown>,
): Promise<Requested> {
  const preview = structured(await model.callTool(tool, args));
  expect(preview.status, JSON.stringify(preview)).toBe('PREVIEW');
  const approvalUrl = preview.approval_url;
  expect(typeof approvalUrl, JSON.stringify(preview)).toBe('string');
  const url = new URL(approvalUrl as string);
  expect(url.pathname).toMatch(/^\/approvals\/[^/]+$/);
  return { preview, approvalUrl: url.href, id: decodeURIComponent(url.pathname.split('/')[2] ?? '') };
}

/** The page of Kim (on call) about Ada's boiler visit; it needs a person's approval. */
export const PAGE_KIM = {
  technician_id: 'te_kim',
  booking_id: 'bk_ada_boiler',
  message: 'Pressure alarm at Ada’s, please call her.',
} as const;

/** The model's `confirm_action` for a preview (the token and the exact summary). */
export const confirmOf = (model: RawHttpClient, preview: Structured) =>
  model
    .callTool('confirm_action', {
      confirm_token: preview.confirm_token,
      confirm_summary: preview.confirm_summary,
    })
    .then(structured);

/** A stored pending action as the tests read it. */
export interface PendingRow {
  readonly status: string;
  readonly decided_by: string | null;
  /** The requesting credential. */
  readonly connection_id: string;
}

/** The stored pending action: status, who decided, the requesting credential. */
export async function pendingRow(t: TestApp, id: string): Promise<PendingRow | undefined> {
  const rows = await t.rows<PendingRow>(
    'SELECT status, decided_by, connection_id FROM gatehouse_pending_actions WHERE id = ?',
    id,
  );
  return rows[0];
}

/** An audit row as the tests read it. */
export interface AuditRow {
  readonly channel: string;
  readonly connection_id: string | null;
  readonly actor_id: string | null;
  readonly action: string;
  readonly outcome: string;
  readonly note: string | null;
}

/** The audit rows of a tool (or other action), oldest first. */
export const auditRows = (t: TestApp, action: string): Promise<AuditRow[]> =>
  t.rows<AuditRow>(
    'SELECT channel, connection_id, actor_id, action, outcome, note FROM gatehouse_audit WHERE action = ? ORDER BY id',
    action,
  );

/** Pages sent to Kim about Ada's booking (the pager's outbox). */
export const pagesSent = (t: TestApp) =>
  t.count('outbound_pages', "technician_id = 'te_kim' AND booking_id = 'bk_ada_boiler'");

/** The CSRF token of the signed-in person's session, from the sign-out form every page carries. */
export const csrfOf = (page: Page): Promise<string | null> =>
  page.locator('form[data-form=signout] input[name=csrf]').getAttribute('value');

/**
 * Builds a form in the page shown and submits it, as a person could from the
 * browser's console; returns the status of the page it leads to.
 */
export async function postForm(page: Page, action: string, fields: Record<string, string>): Promise<number> {
  const [response] = await Promise.all([
    page.waitForNavigation(),
    page.evaluate(
      ({ action, fields }) => {
        const form = document.createElement('form');
        form.method = 'post';
        form.action = action;
        for (const [name, value] of Object.entries(fields)) {
          const input = document.createElement('input');
          input.type = 'hidden';
          input.name = name;
          input.value = value;
          form.append(input);
        }
        document.body.append(form);
        form.submit();
      },
      { action, fields },
    ),
  ]);
  return response?.status() ?? 0;
}

/**
 * Clicks the button named `name` in the form `selector` (or, with `link`,
 * the link `selector` itself) and waits for the page it leads to.
 */
export async function submit(page: Page, selector: string, name: string, kind: 'form' | 'link' = 'form') {
  const target =
    kind === 'link' ? page.locator(selector) : page.locator(selector).getByRole('button', { name });
  const [response] = await Promise.all([page.waitForNavigation(), target.click()]);
  return response?.status() ?? 0;
}
