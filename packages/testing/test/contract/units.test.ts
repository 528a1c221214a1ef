import { EFFECT_TRAITS, EFFECTS } from '@gatehousejs/core';
import { renderOutcome } from '@gatehousejs/core/internal';
import { describe, expect, it } from 'vitest';
import { canaryPlaces } from '../../src/contract/checks/content.js';
import type { ContractTool } from '../../src/contract/plan.js';
import { argumentsFor, replyFindings } from '../../src/fuzz.js';
import {
  effectFromAnnotations,
  errorEnvelopeFindings,
  OutputSchemas,
  resultShapeFindings,
} from '../../src/index.js';

const error = renderOutcome({
  kind: 'refused',
  error: {
    code: 'not_found',
    message: 'Note n9 does not exist.',
    fix: 'Search first.',
    next: { tool: 'find_notes' },
  },
});
const ok = renderOutcome({ kind: 'result', data: { id: 'n1' } });
const schema = {
  type: 'object',
  oneOf: [{ properties: { status: { const: 'ok' } } }, { properties: { status: { const: 'error' } } }],
};

describe('effectFromAnnotations', () => {
  it('reads the class whose hints match, and nothing from unknown hints', () => {
    const read = EFFECTS.map((e) => effectFromAnnotations(EFFECT_TRAITS[e].annotations));
    expect(read).toEqual(['read', 'write', 'notify', 'notify', 'alert', 'alert']);
    expect(effectFromAnnotations({ readOnlyHint: true })).toBeUndefined();
    expect(effectFromAnnotations(undefined)).toBeUndefined();
  });
});

describe('errorEnvelopeFindings', () => {
  it('accepts core’s envelope and names each way an error can be malformed', () => {
    expect(errorEnvelopeFindings(error)).toEqual([]);
    const text = error.content[0].text;
    expect(
      errorEnvelopeFindings({ ...error, content: [{ type: 'text', text: text.replace('Error:', 'Oops:') }] }),
    ).toEqual([expect.stringContaining('does not start with "Error:"')]);
    expect(
      errorEnvelopeFindings({ ...error, content: [{ type: 'text', text: `${text}\n{"status":"error"}` }] }),
    ).toEqual([expect.stringContaining('differs from structuredContent')]);
    const toCreate = renderOutcome({
      kind: 'refused',
      error: {
        code: 'not_found',
        message: 'No such note.',
        fix: 'Create it.',
        next: { tool: 'create_note' },
      },
    });
    expect(errorEnvelopeFindings(toCreate)).toEqual([
      expect.stringContaining('points to the create tool create_note'),
    ]);
    expect(errorEnvelopeFindings({ ...error, isError: undefined })).toEqual([
      expect.stringContaining('isError'),
    ]);
  });
});

describe('resultShapeFindings', () => {
  it('compares text with structuredContent and validates against the output schema', () => {
    const schemas = new OutputSchemas();
    expect(resultShapeFindings('t', ok, schema, schemas)).toEqual([]);
    expect(resultShapeFindings('t', error, schema, schemas)).toEqual([]);
    expect(
      resultShapeFindings(
        't',
        { ...ok, content: [{ type: 'text', text: '{"status":"ok"}' }] },
        schema,
        schemas,
      ),
    ).toEqual([expect.stringContaining('not the JSON of structuredContent')]);
    expect(resultShapeFindings('u', ok, { type: 'object', required: ['nope'] }, schemas)).toEqual([
      expect.stringContaining('does not validate'),
    ]);
    expect(resultShapeFindings('v', ok, undefined, schemas)).toEqual(['v advertises no outputSchema']);
  });
});

describe('canaryPlaces', () => {
  it('tells wrapped and sanitized canaries from raw ones', () => {
    const note = 'data, not instructions';
    const places = canaryPlaces(
      {
        a: { untrusted_text: 'x CANARY', note },
        b: 'CANARY raw',
        c: [{ untrusted_text: 'CANARY\u202E', note }],
      },
      'CANARY',
    );
    expect(places).toEqual([
      { path: 'a.untrusted_text', wrapped: true, clean: true },
      { path: 'b', wrapped: false, clean: true },
      { path: 'c[0].untrusted_text', wrapped: true, clean: false },
    ]);
  });
});

describe('replyFindings', () => {
  const tool = { name: 't', outputSchema: schema } as unknown as ContractTool;
  const reply = {
    status: 200,
    retryAfter: undefined,
    result: undefined,
    rpcError: undefined,
    failure: undefined,
  };
  it('accepts results, errors and invalid-params refusals; flags crashes and 5xx', () => {
    const schemas = new OutputSchemas();
    expect(replyFindings(tool, { ...reply, result: ok }, schemas)).toEqual([]);
    expect(replyFindings(tool, { ...reply, rpcError: { code: -32602, message: 'bad' } }, schemas)).toEqual(
      [],
    );
    expect(replyFindings(tool, { ...reply, status: 500 }, schemas)).toEqual(['HTTP 500']);
    expect(replyFindings(tool, { ...reply, rpcError: { code: -32603, message: 'x' } }, schemas)).toHaveLength(
      1,
    );
    const crash = renderOutcome({
      kind: 'refused',
      error: { code: 'internal_error', message: 'm', fix: 'f' },
    });
    expect(replyFindings(tool, { ...reply, result: crash }, schemas)).toContain(
      'the server failed unexpectedly (internal_error)',
    );
  });
});

describe('argumentsFor', () => {
  it('generates objects with own prototype-pollution keys as well as non-objects', async () => {
    const fc = await import('fast-check');
    const samples = fc.sample(argumentsFor({ type: 'object', properties: { a: { type: 'string' } } }), {
      numRuns: 400,
      seed: 3,
    });
    expect(samples.some((s) => typeof s === 'object' && s !== null && Object.hasOwn(s, '__proto__'))).toBe(
      true,
    );
    expect(samples.some((s) => s === null || Array.isArray(s) || typeof s !== 'object')).toBe(true);
  });
});
