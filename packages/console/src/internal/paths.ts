/** Checks and normalizes a base path: `''` or `/segment[/segment…]`, no trailing slash. */
export function basePathOf(given: string | undefined): string {
  const base = given ?? '';
  if (base === '' || base === '/') return '';
  if (!/^(\/[A-Za-z0-9._~-]+)+$/.test(base)) {
    throw new TypeError(
      `createConsole: basePath must be '' or a path like /console (letters, digits, . _ ~ -), not ${JSON.stringify(base).slice(0, 80)}.`,
    );
  }
  return base;
}

const hasControl = (text: string) =>
  [...text].some((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f);

/**
 * `path` when it is a same-origin path (starts with `/`, not `//`, no
 * backslash, no control character, no scheme) under `base`, else `fallback`:
 * where a sign-in returns to, never another site.
 */
export function safeReturn(path: string | undefined, base: string, fallback: string): string {
  if (!path?.startsWith('/') || path.startsWith('//') || path.includes('\\') || hasControl(path))
    return fallback;
  try {
    const url = new URL(path, 'http://console.invalid');
    if (url.origin !== 'http://console.invalid') return fallback;
    const within = base === '' || url.pathname === base || url.pathname.startsWith(`${base}/`);
    return within ? path : fallback;
  } catch {
    return fallback;
  }
}
