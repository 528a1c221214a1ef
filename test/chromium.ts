// A real browser for tests of the console and the booking pages: Debian's Chromium driven by
// playwright-core (no browser download). Without a browser the browser tests
// are skipped with the reason in their name; under CI=true a missing or
// broken browser fails the file instead.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Dialog, type Page } from 'playwright-core';
import { describe, it } from 'vitest';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../scripts/chromium.mjs';

export { CHROMIUM_ARGS, CHROMIUM_PATH };

/** How long Chromium may take to start before the launch counts as failed. */
const LAUNCH_TIMEOUT_MS = 30_000;

/** A running Chromium with a fresh profile; disposing it closes the browser and removes the profile. */
export interface TestBrowser extends AsyncDisposable {
  readonly browser: Browser;
  /**
   * A new isolated context (its own cookies and storage): one per person a
   * test signs in. Every page opened in it records its dialogs.
   */
  person(): Promise<BrowserContext>;
  close(): Promise<void>;
}

/**
 * Starts Chromium at {@link CHROMIUM_PATH} with {@link CHROMIUM_ARGS} (and
 * `extraArgs`, e.g. a host resolver rule) and a fresh `--user-data-dir` (a temp folder, removed on close). playwright-core
 * refuses `--user-data-dir` in `launch()`, so the profile goes through
 * `launchPersistentContext`; {@link TestBrowser.person} opens isolated
 * contexts beside it.
 */
export async function launchBrowser(extraArgs: readonly string[] = []): Promise<TestBrowser> {
  const profile = mkdtempSync(join(tmpdir(), 'booking-chromium-'));
  let persistent: BrowserContext;
  try {
    persistent = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM_PATH,
      args: [...CHROMIUM_ARGS, ...extraArgs],
      timeout: LAUNCH_TIMEOUT_MS,
    });
  } catch (error) {
    rmSync(profile, { recursive: true, force: true });
    throw error;
  }
  const browser = persistent.browser();
  if (!browser) {
    await persistent.close();
    rmSync(profile, { recursive: true, force: true });
    throw new Error('Chromium started without a browser handle; check the playwright-core version.');
  }
  const contexts: BrowserContext[] = [];
  const close = async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
    await persistent.close().catch(() => undefined);
    rmSync(profile, { recursive: true, force: true });
  };
  return {
    browser,
    async person() {
      const context = await browser.newContext();
      contexts.push(context);
      context.on('page', (page) => watchDialogs(page));
      return context;
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}

const DIALOGS = new WeakMap<Page, Dialog[]>();

/** Records and dismisses every dialog (alert, confirm, prompt) a page opens. */
function watchDialogs(page: Page): void {
  const seen: Dialog[] = [];
  DIALOGS.set(page, seen);
  page.on('dialog', (dialog) => {
    seen.push(dialog);
    void dialog.dismiss().catch(() => undefined);
  });
}

/** The dialogs a page of {@link TestBrowser.person} opened so far (their messages). */
export function dialogsOf(page: Page): readonly string[] {
  return (DIALOGS.get(page) ?? []).map((dialog) => `${dialog.type()}: ${dialog.message()}`);
}

/** Whether a browser can run here, and why not. */
export type BrowserAvailability = { readonly ok: true } | { readonly ok: false; readonly reason: string };

let probe: Promise<BrowserAvailability> | undefined;

async function tryLaunch(): Promise<BrowserAvailability> {
  if (!existsSync(CHROMIUM_PATH)) {
    return {
      ok: false,
      reason: `chromium not found at ${CHROMIUM_PATH} (install Debian's chromium or set CHROMIUM_PATH)`,
    };
  }
  try {
    await using browser = await launchBrowser();
    const context = await browser.person();
    const page = await context.newPage();
    await page.setContent('<p>ready</p>');
    return { ok: true };
  } catch (error) {
    const first = (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
    return { ok: false, reason: `chromium at ${CHROMIUM_PATH} did not start: ${first.slice(0, 200)}` };
  }
}

/**
 * Starts Chromium once per test file and tells whether that worked, with the
 * reason when it did not (a missing binary, a launch that failed).
 */
export function browserAvailable(): Promise<BrowserAvailability> {
  probe ??= tryLaunch();
  return probe;
}

/**
 * `describe` for browser tests. With a browser it is `describe`; without one
 * the block is skipped and its name carries the reason ("… (skipped:
 * chromium not found at …)"), except under `CI=true`, where one test fails
 * with the reason instead, so CI never passes without running them.
 *
 * @example
 * const availability = await browserAvailable();
 * describeWithBrowser(availability, 'approval pages', () => { … });
 */
export function describeWithBrowser(availability: BrowserAvailability, name: string, body: () => void): void {
  if (availability.ok) {
    describe(name, body);
    return;
  }
  const { reason } = availability;
  if (process.env.CI === 'true') {
    describe(name, () => {
      it('needs a browser under CI', () => {
        throw new Error(`Browser tests cannot run under CI: ${reason}.`);
      });
    });
    return;
  }
  describe.skipIf(true)(`${name} (skipped: ${reason})`, body);
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * The serious and critical accessibility violations axe-core finds on the
 * page as it stands (WCAG 2.2 A and AA rules, and best practices), one line
 * each: `rule: what it wants (how many elements)`. axe is evaluated through
 * the browser's debugging protocol, which the pages' CSP does not govern.
 */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  const found = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as { axe: { run(context: unknown, options: unknown): Promise<AxeResult> } }
    ).axe;
    const result = await axe.run(document, {
      runOnly: {
        type: 'tag',
        values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'],
      },
    });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.length,
    }));
  });
  return found
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.help} (${v.nodes})`);
}

interface AxeResult {
  readonly violations: readonly {
    readonly id: string;
    readonly impact: string | null;
    readonly help: string;
    readonly nodes: readonly unknown[];
  }[];
}
