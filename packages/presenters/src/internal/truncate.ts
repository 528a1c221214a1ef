const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** Number of code points in a string (a surrogate pair counts once). */
export function codePointLength(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}

/**
 * Keeps at most `maxLength` code points of `text`, cutting only between
 * graphemes, and says how many code points were dropped.
 */
export function truncateText(text: string, maxLength: number): { kept: string; omitted: number } {
  if (text.length <= maxLength) return { kept: text, omitted: 0 };
  const total = codePointLength(text);
  if (total <= maxLength) return { kept: text, omitted: 0 };
  let used = 0;
  let end = 0;
  for (const { segment, index } of graphemes.segment(text)) {
    const size = codePointLength(segment);
    if (used + size > maxLength) break;
    used += size;
    end = index + segment.length;
  }
  return { kept: text.slice(0, end), omitted: total - used };
}
