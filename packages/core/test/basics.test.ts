import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, digest, EFFECT_TRAITS, EFFECTS, isOutward, sha256Hex } from '../src/index.js';
import { portableSha256Hex } from '../src/internal.js';
import { readBearer } from '../src/serve/bearer.js';

describe('digest', () => {
  it('ignores key order at every level and follows RFC 8785 number forms', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, 2], c: 1e21 } })).toBe('{"a":{"c":1e+21,"d":[1,2]},"b":1}');
    expect(digest({ b: 1, a: { y: 2, x: 1 } })).toBe(digest({ a: { x: 1, y: 2 }, b: 1 }));
    expect(digest({ a: 1 })).not.toBe(digest({ a: 2 }));
    expect(digest({ a: 1 })).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('sha256Hex', () => {
  it('gives the known digests (FIPS 180-2 vectors), natively and portably', () => {
    for (const hash of [sha256Hex, portableSha256Hex]) {
      expect(hash('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
      expect(hash('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    }
  });

  it('the native hash and the portable one agree on any text, lone surrogates included', () => {
    const text = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 300 }),
      fc.string({ unit: 'grapheme', maxLength: 80 }),
      fc.constantFrom('\ud800', 'a\udfffb', '\udc00\ud800', 'x'.repeat(1000)),
    );
    fc.assert(fc.property(text, (value) => sha256Hex(value) === portableSha256Hex(value)));
  });
});

describe('EFFECT_TRAITS', () => {
  it('marks only read as read-only, only write as replay-protected, and the outward four as two-step', () => {
    expect(EFFECTS.filter((e) => EFFECT_TRAITS[e].annotations.readOnlyHint)).toEqual(['read']);
    expect(EFFECTS.filter((e) => EFFECT_TRAITS[e].replayProtected)).toEqual(['write']);
    expect(EFFECTS.filter(isOutward)).toEqual(['notify', 'wake', 'alert', 'delete']);
    expect(EFFECTS.filter((e) => EFFECT_TRAITS[e].annotations.destructiveHint)).toEqual(['alert', 'delete']);
  });
});

describe('readBearer', () => {
  it.each([
    [undefined, { ok: false, problem: 'missing' }],
    ['', { ok: false, problem: 'missing' }],
    ['Basic dXNlcjpwYXNz', { ok: false, problem: 'malformed' }],
    ['Bearer', { ok: false, problem: 'malformed' }],
    ['Bearer a b', { ok: false, problem: 'malformed' }],
    ['Bearer tok"en', { ok: false, problem: 'malformed' }],
    ['Bearer gh_abc.DEF-123~+/==', { ok: true, token: 'gh_abc.DEF-123~+/==' }],
    ['bearer   gh_x', { ok: true, token: 'gh_x' }],
  ])('reads %j', (header, expected) => {
    expect(readBearer(header)).toEqual(expected);
  });
});
