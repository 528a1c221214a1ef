/**
 * The pages' tests' browser: `FormBrowser` of `@gatehousejs/testing` (a
 * cookie jar, no automatic redirects, the page's own Origin on every POST,
 * the CSRF token of the last page), signed in as a seeded person.
 */
import { FormBrowser } from '@gatehousejs/testing';
import type { TestApp } from './fixtures/testApp.js';

export type { FormPage as Page, FormPostOptions as PostOptions } from '@gatehousejs/testing';
export { cookieFrom, csrfIn, FormBrowser as PagesBrowser, hiddenFieldsIn } from '@gatehousejs/testing';

/** A fresh password for a seeded person, set through the people directory. */
export async function passwordOf(t: TestApp, personId: string): Promise<{ email: string; password: string }> {
  const person = await t.app.people.byId(personId);
  if (!person) throw new Error(`seed missing ${personId}`);
  const password = await t.app.people.resetPassword(person, { actorId: 'ops', channel: 'cli' });
  return { email: person.email, password };
}

/** Serves the app and returns a browser signed in as `personId`. */
export async function signedInBrowser(t: TestApp, personId = 'p_olivia'): Promise<FormBrowser> {
  const serving = await t.serve();
  const browser = new FormBrowser(serving.mcpUrl.origin);
  const { email, password } = await passwordOf(t, personId);
  await browser.signIn(email, password);
  return browser;
}
