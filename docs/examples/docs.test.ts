import { readFileSync } from 'node:fs';
import { EFFECT_TRAITS, EFFECTS, ERROR_CODES } from '@gatehousejs/core';
import { describe, expect, it } from 'vitest';
import { server } from './firstTool.js';

const doc = (name: string) => readFileSync(new URL(`../${name}`, import.meta.url), 'utf8');

describe('docs', () => {
  it('runs the first tool of the README exactly as written', async () => {
    const decision = await server.authenticate({ token: 'demo-token' });
    if (!decision.ok) throw new Error('the demo token was refused');
    const result = await server.callTool(decision.connection, 'find_notes', { query: 'Ada' });
    expect(result.structuredContent).toEqual({
      status: 'ok',
      result: { notes: [{ id: 'n1', text: 'Call Ada about the boiler' }] },
    });
    expect(JSON.stringify(result)).not.toContain('never shown');
  });

  it('keeps the first tool under 30 lines and quotes it verbatim in the README', () => {
    const source = readFileSync(new URL('./firstTool.ts', import.meta.url), 'utf8');
    const region = source.split('// #region first-tool\n')[1]?.split('// #endregion first-tool')[0] ?? '';
    expect(region.split('\n').filter((l) => l.trim()).length).toBeLessThanOrEqual(30);
    expect(readFileSync(new URL('../../README.md', import.meta.url), 'utf8')).toContain(region.trim());
  });

  it('lists every error code in docs/errors.md', () => {
    const text = doc('errors.md');
    for (const code of Object.keys(ERROR_CODES)) expect(text, code).toContain(`\`${code}\``);
  });

  it('documents the effect table as the code defines it', () => {
    // Compare cells, not padding: the formatter aligns table columns.
    const text = doc('effects.md').replace(/ +\|/g, ' |').replace(/\| +/g, '| ');
    for (const effect of EFFECTS) {
      const a = EFFECT_TRAITS[effect].annotations;
      const row = `| \`${effect}\` | ${a.readOnlyHint} | ${a.destructiveHint} | ${a.idempotentHint} | ${a.openWorldHint} | ${EFFECT_TRAITS[effect].replayProtected ? 'yes' : 'no'} | ${EFFECT_TRAITS[effect].twoStep ? 'yes' : 'no'} |`;
      expect(text).toContain(row);
    }
  });
});
