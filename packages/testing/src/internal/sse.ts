/**
 * The `data` payloads of the complete events in a `text/event-stream` body.
 *
 * Follows the EventSource parsing rules: lines end in CRLF, LF or CR; `data` lines of one event
 * join with LF; one space after the colon is dropped; comments and other fields are ignored; an
 * event with no data is not dispatched; a final event without its blank line is discarded.
 */
export function parseSseData(text: string): string[] {
  const payloads: string[] = [];
  let data: string[] = [];
  const lines = text.split(/\r\n|\r|\n/);
  lines.pop(); // the text after the last line end is not a complete line
  for (const line of lines) {
    if (line === '') {
      if (data.length > 0) payloads.push(data.join('\n'));
      data = [];
      continue;
    }
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    if (field !== 'data') continue;
    const value = colon === -1 ? '' : line.slice(colon + 1);
    data.push(value.startsWith(' ') ? value.slice(1) : value);
  }
  return payloads;
}
