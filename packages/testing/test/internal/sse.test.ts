import { describe, expect, it } from 'vitest';
import { parseSseData } from '../../src/internal/sse.js';

describe('parseSseData', () => {
  it('returns the data of each complete event', () => {
    const text = 'event: message\ndata: {"id":1}\n\nevent: message\ndata: {"id":2}\n\n';

    expect(parseSseData(text)).toEqual(['{"id":1}', '{"id":2}']);
  });

  it('joins multi-line data with a newline and accepts CRLF and CR line ends', () => {
    const text = 'data: {"a":\r\ndata:1}\r\n\r\ndata: x\r\r';

    expect(parseSseData(text)).toEqual(['{"a":\n1}', 'x']);
  });

  it('skips comments, other fields and events without data', () => {
    const text = ': keep-alive\n\nid: 7\nretry: 1000\n\nid: 8\ndata: {"id":3}\n\n';

    expect(parseSseData(text)).toEqual(['{"id":3}']);
  });

  it('discards a final event cut off before its blank line', () => {
    expect(parseSseData('data: {"id":1}\n\ndata: {"id":2}\n')).toEqual(['{"id":1}']);
  });
});
