import { describe, expect, it } from 'vitest';
import { parseErrorJsonLine, toolResultText } from '../src/index.js';

describe('toolResultText', () => {
  it('joins the text items of a result and skips other content', () => {
    const result = {
      content: [
        { type: 'text', text: 'first' },
        { type: 'image', data: 'AAAA', mimeType: 'image/png' },
        { type: 'text', text: 'second' },
      ],
    };

    expect(toolResultText(result)).toBe('first\nsecond');
  });

  it('throws a TypeError that shows what arrived instead of a result', () => {
    expect(() => toolResultText(undefined)).toThrow(/content array; got undefined/);
    expect(() => toolResultText({ tools: [] })).toThrow(/got \{"tools":\[\]\}/);
  });
});

describe('parseErrorJsonLine', () => {
  it('parses the JSON object on the last line of an error text', () => {
    const text =
      'Error: Booking bk_1 does not exist.\nFix: Search first.\n{"code":"not_found","next":{"tool":"find"}}\n';

    expect(parseErrorJsonLine(text)).toEqual({ code: 'not_found', next: { tool: 'find' } });
  });

  it('refuses text that is not an error', () => {
    expect(() => parseErrorJsonLine('{"code":"x"}')).toThrow(/starting with "Error:"/);
  });

  it('refuses an error text whose last line is not a JSON object', () => {
    expect(() => parseErrorJsonLine('Error: broken\nFix: none')).toThrow(/not JSON/);
    expect(() => parseErrorJsonLine('Error: broken\n[1,2]')).toThrow(/not a JSON object/);
  });
});
