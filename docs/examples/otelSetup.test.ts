import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

describe('docs/telemetry.md', () => {
  it('quotes the host setup of otelSetup.ts verbatim (the file is type-checked with the docs)', () => {
    const source = readFileSync(new URL('./otelSetup.ts', import.meta.url), 'utf8');
    const region = source.split('// #region otel-setup\n')[1]?.split('// #endregion otel-setup')[0] ?? '';
    expect(region).toContain('openTelemetry(api');
    expect(readFileSync(new URL('../telemetry.md', import.meta.url), 'utf8')).toContain(
      `\`\`\`ts\n${region.trimEnd()}\n\`\`\``,
    );
  });
});
