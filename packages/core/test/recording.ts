import type { Logger } from '../src/index.js';

/** A logger that keeps every record, for asserting what was (not) logged. */
export function recordingLogger(): Logger & {
  readonly lines: { level: string; record: object; message?: string }[];
} {
  const lines: { level: string; record: object; message?: string }[] = [];
  const at = (level: string) => (record: object, message?: string) => {
    lines.push({ level, record, ...(message === undefined ? {} : { message }) });
  };
  return { lines, info: at('info'), warn: at('warn'), error: at('error') };
}
