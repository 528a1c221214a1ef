import type { BookingApp } from '../app.js';

/**
 * A one-time sign-in link to the operator pages for an active person: its
 * token is stored hashed, works once, for 15 minutes, and lands on
 * `/approvals`, or on the page whose sign-in the browser started (a consent
 * page sends the person to sign in and remembers where). Returns the
 * absolute URL under the product's public origin.
 *
 * @example
 * process.stdout.write(`Sign-in link (one use, 15 min): ${await createSignInLink(app, 'p_olivia')}\n`);
 */
export async function createSignInLink(app: BookingApp, personId: string): Promise<string> {
  const token = await app.apiAccess.createSignInLink(personId);
  return app.publicUrl.of(`/signin/link/${token}`);
}
