/**
 * The pages' cookies against cookie tossing: cookies ignore ports, so a page
 * on another port of the host can add a cookie the pages receive. A request
 * carrying one of the pages' cookies twice (a planted copy on a path under
 * the pages beside the real one) is refused before any page reads it, and
 * every copy is deleted; served Secure, the pages read only the `__Host-`
 * names, so an unprefixed copy set by a plain-http neighbour is never read.
 */
import { describe, expect, it } from 'vitest';
import { createPagesHandler } from '../src/pages/index.js';
import { testApp } from './fixtures/testApp.js';
import { PagesBrowser, passwordOf } from './pagesClient.js';

describe('cookies planted beside the pages’ own', () => {
  it('refuses a request carrying the session cookie twice, showing neither person, and deletes every copy', async () => {
    await using t = await testApp();
    const { mcpUrl } = await t.serve();
    const olivia = (await t.app.apiAccess.openSession('p_olivia')).token;
    const vera = (await t.app.apiAccess.openSession('p_vera')).token;
    const b = new PagesBrowser(mcpUrl.origin);
    // the browser sends the copy with the longer path first: the planted one
    const cookie = `booking_page=${encodeURIComponent(vera)}; booking_page=${encodeURIComponent(olivia)}`;
    for (const path of ['/approvals', '/tokens', '/signin']) {
      const page = await b.get(path, { cookie });
      expect(page.status, path).toBe(400);
      expect(page.text).toContain('Conflicting cookies');
      expect(page.text).not.toContain('data-person');
      expect(page.cookies).toContain('booking_page=; HttpOnly; Path=/; SameSite=Lax; Max-Age=0');
    }
    const deep = await b.get('/approvals/pa_1', { cookie });
    expect(deep.cookies).toEqual(
      expect.arrayContaining([
        'booking_page=; HttpOnly; Path=/approvals; SameSite=Lax; Max-Age=0',
        'booking_page=; HttpOnly; Path=/approvals/pa_1; SameSite=Lax; Max-Age=0',
      ]),
    );
    // a form posted with two sessions changes nothing either
    const posted = await b.post('/switches', {}, { headers: { cookie } });
    expect(posted.status).toBe(400);
    expect(await t.count('gatehouse_audit', "channel = 'pages'")).toBe(0);
    // one cookie of each is read as before
    expect((await b.get('/tokens', { cookie: `booking_page=${encodeURIComponent(olivia)}` })).status).toBe(
      200,
    );
  });

  it('refuses the interaction cookie twice on the consent page', async () => {
    await using t = await testApp();
    const { mcpUrl } = await t.serve();
    const b = new PagesBrowser(mcpUrl.origin);
    const { email, password } = await passwordOf(t, 'p_olivia');
    await b.signIn(email, password);
    const session = b.jar.get('booking_page') ?? '';
    const page = await b.get('/oauth/consent/abc', {
      cookie: `booking_page=${session}; _interaction=abc; _interaction=def`,
    });
    expect(page.status).toBe(400);
  });

  it('served Secure, reads only the __Host- session: an unprefixed copy beside it is never read', async () => {
    await using t = await testApp();
    const handler = createPagesHandler(t.app).fetch;
    const olivia = encodeURIComponent((await t.app.apiAccess.openSession('p_olivia')).token);
    const vera = encodeURIComponent((await t.app.apiAccess.openSession('p_vera')).token);
    const get = (cookie: string) =>
      handler(new Request('https://booking.example/tokens', { headers: { cookie } }));
    const mixed = await get(`booking_page=${vera}; __Host-booking_page=${olivia}`);
    expect(mixed.status).toBe(200);
    const text = await mixed.text();
    expect(text).toContain('<span data-person>Olivia');
    // the unprefixed name alone is no session when served Secure
    expect((await get(`booking_page=${vera}`)).status).toBe(303);
  });
});
