/**
 * Which client metadata documents may come from a private or loopback
 * address: `<prefix>METADATA_HOSTS` parsed at startup, and the fetch
 * that lifts oidc-provider's address guard (the dispatcher it puts in the
 * request options) for the listed hosts only.
 */
import { ConfigurationError } from '@gatehousejs/core';
import { describe, expect, it } from 'vitest';
import {
  metadataFetch,
  metadataHostOf,
  metadataHostsFrom,
  type ProviderFetch,
  unguardedFetch,
} from '../src/metadataFetch.js';
import { oauthSettingsFromEnv } from '../src/server.js';

const VARIABLE = 'BOOKING_OAUTH_METADATA_HOSTS';
const metadataHostsFromEnv = (raw: string | undefined) => metadataHostsFrom(raw, VARIABLE);

/** Stands for the provider's address guard: an undici dispatcher in the request options. */
const GUARD = Object.freeze({ guard: 'special-use addresses refused' });

/** A fetch that records the options each URL was fetched with. */
function recordingFetch() {
  const calls: { url: string; init: RequestInit & { dispatcher?: unknown } }[] = [];
  const base: ProviderFetch = async (url, init) => {
    calls.push({ url: String(url), init });
    return new Response('{}');
  };
  return { calls, base };
}

/** Fetches `url` as the provider does (the guard in the options) and says whether the guard reached the network. */
async function guardKept(fetch: (base: ProviderFetch) => ProviderFetch, url: string): Promise<boolean> {
  const { calls, base } = recordingFetch();
  await fetch(base)(url, { method: 'GET', dispatcher: GUARD } as RequestInit);
  expect(calls).toHaveLength(1);
  return calls[0]?.init.dispatcher === GUARD;
}

/** The configuration error `metadataHostsFrom` throws for `raw`. */
function refusal(raw: string): ConfigurationError {
  try {
    metadataHostsFromEnv(raw);
  } catch (error) {
    if (error instanceof ConfigurationError) return error;
    throw error;
  }
  throw new Error(`accepted ${JSON.stringify(raw)}`);
}

describe('metadataHostsFrom', () => {
  it('reads comma-separated host and host:port entries in the form of a URL host', () => {
    expect(metadataHostsFromEnv('127.0.0.1:8443, LOCALHOST ,[::1]:9443,docs.example:443')).toEqual([
      '127.0.0.1:8443',
      'localhost',
      '[::1]:9443',
      'docs.example',
    ]);
  });

  it('is unset when the variable is unset or empty', () => {
    expect(metadataHostsFromEnv(undefined)).toBeUndefined();
    expect(metadataHostsFromEnv('')).toBeUndefined();
    expect(metadataHostsFromEnv('  ')).toBeUndefined();
  });

  it('refuses empty entries, URLs, paths, credentials, bare IPv6 and ports out of range with one line naming the variable', () => {
    const bad = [
      '127.0.0.1:8443,,localhost',
      'localhost,',
      'https://127.0.0.1:8443',
      '127.0.0.1:8443/client.json',
      'user@127.0.0.1',
      '::1',
      '127.0.0.1:0',
      '127.0.0.1:65536',
      '127.0.0.1:',
      'local host',
    ];
    for (const raw of bad) {
      const error = refusal(raw);
      expect(error.message, raw).toMatch(
        /^BOOKING_OAUTH_METADATA_HOSTS must be comma-separated host or host:port/,
      );
      expect(error.message).not.toContain('\n');
    }
  });

  it('is read with the other OAuth settings, and a bad list stops them being read', () => {
    const env = { BOOKING_OAUTH_METADATA_HOSTS: '127.0.0.1:8443' };
    expect(oauthSettingsFromEnv(env, 'BOOKING_OAUTH_').metadataHosts).toEqual(['127.0.0.1:8443']);
    expect(oauthSettingsFromEnv({}, 'BOOKING_OAUTH_').metadataHosts).toBeUndefined();
    expect(() =>
      oauthSettingsFromEnv({ BOOKING_OAUTH_METADATA_HOSTS: 'https://a.example' }, 'BOOKING_OAUTH_'),
    ).toThrow(ConfigurationError);
  });
});

describe('metadataHostOf', () => {
  it('takes a bare host for port 443, the port of an https URL that names none', () => {
    expect(metadataHostOf('docs.example')).toBe(new URL('https://docs.example/client.json').host);
    expect(metadataHostOf('docs.example:443')).toBe('docs.example');
    expect(metadataHostOf('docs.example:8443')).toBe('docs.example:8443');
  });
});

describe('metadataFetch', () => {
  const allowed = (base: ProviderFetch) => metadataFetch(['127.0.0.1:8443', 'docs.example'], base);

  it('lifts the address guard for an https URL on a listed host and port', async () => {
    expect(await guardKept(allowed, 'https://127.0.0.1:8443/client.json')).toBe(false);
    expect(await guardKept(allowed, 'https://docs.example/client.json')).toBe(false);
    expect(await guardKept(allowed, 'https://DOCS.example:443/client.json')).toBe(false);
  });

  it('keeps the guard for another port, another name for the same address, and any other host', async () => {
    expect(await guardKept(allowed, 'https://127.0.0.1:9443/client.json')).toBe(true);
    expect(await guardKept(allowed, 'https://127.0.0.1/client.json')).toBe(true);
    expect(await guardKept(allowed, 'https://localhost:8443/client.json')).toBe(true);
    expect(await guardKept(allowed, 'https://docs.example:8443/client.json')).toBe(true);
    expect(await guardKept(allowed, 'https://10.0.0.1/client.json')).toBe(true);
    expect(await guardKept(allowed, 'https://192.168.0.1:8443/client.json')).toBe(true);
  });

  it('keeps the guard for a URL that is not https, even on a listed host', async () => {
    expect(await guardKept(allowed, 'http://127.0.0.1:8443/client.json')).toBe(true);
    expect(await guardKept(allowed, 'not a url')).toBe(true);
  });

  it('passes the other request options on unchanged', async () => {
    const { calls, base } = recordingFetch();
    const signal = AbortSignal.timeout(2_500);
    const headers = new Headers({ accept: 'application/json' });
    const init = { method: 'GET', headers, redirect: 'manual', signal, dispatcher: GUARD } as RequestInit;
    await allowed(base)('https://127.0.0.1:8443/client.json', init);
    expect(calls[0]?.init).toEqual({ method: 'GET', headers, redirect: 'manual', signal });
  });

  it('refuses an entry that is not host or host:port', () => {
    expect(() => metadataFetch(['https://docs.example'])).toThrow(ConfigurationError);
    expect(() => metadataFetch(['docs.example:70000'])).toThrow(/metadataHosts must list host or host:port/);
  });
});

describe('unguardedFetch', () => {
  it('lifts the address guard for every host (allowPrivateMetadataFetch)', async () => {
    expect(await guardKept(unguardedFetch, 'https://10.0.0.1/client.json')).toBe(false);
    expect(await guardKept(unguardedFetch, 'https://127.0.0.1:9443/client.json')).toBe(false);
  });
});
