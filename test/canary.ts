// The injection canary of I16 for pages: markup that runs script if a page
// inserts it as HTML instead of text, and the check that nothing ran.
import type { Page } from 'playwright-core';
import { dialogsOf } from './chromium.js';

/** Each canary sets `window.__pwned` (and opens a dialog) if it is ever parsed as markup. */
export const CANARIES = [
  '<script>window.__pwned=1;alert("pwned")</script>',
  '"><img src=x onerror="window.__pwned=1;alert(1)">',
] as const;

/** One field's canary text: both canaries, tagged so a test can find where it is shown. */
export const canaryText = (tag: string): string => `${tag} ${CANARIES[0]} ${CANARIES[1]}`;

/** What a page did with the canaries: whether any ran, the dialogs it opened, the elements they would have made. */
export interface CanaryReport {
  readonly pwned: unknown;
  readonly dialogs: readonly string[];
  /** `<img src=x>` and `<script>` elements whose markup came from a canary. */
  readonly injectedElements: number;
}

/**
 * Checks a loaded page after the canaries were rendered: `window.__pwned`,
 * dialogs, and elements the canaries would create. Waits a moment first, so an
 * `onerror` of a broken image has had its chance to fire.
 */
export async function canaryReport(page: Page): Promise<CanaryReport> {
  await page.waitForLoadState('load');
  await page.waitForTimeout(100);
  const found = await page.evaluate(() => {
    const marked = (window as unknown as { __pwned?: unknown }).__pwned;
    const images = [...document.querySelectorAll('img')].filter((img) => img.getAttribute('src') === 'x');
    const scripts = [...document.querySelectorAll('script')].filter((s) =>
      (s.textContent ?? '').trim().startsWith('window.__pwned'),
    );
    return { pwned: marked, injectedElements: images.length + scripts.length };
  });
  return { ...found, dialogs: dialogsOf(page) };
}

/** The visible text of the whole page (header, main content). */
export function visibleText(page: Page): Promise<string> {
  // biome-ignore lint/performance/useDomNodeTextContent: the rendered text a person sees, not the DOM's text nodes
  return page.locator('body').innerText();
}
