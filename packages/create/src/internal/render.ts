import type { ProjectOptions, Store } from '../options.js';
import { isStore } from '../options.js';

/** The parts of the options a template's text depends on. */
export type Variant = Pick<ProjectOptions, 'store' | 'console'> & { readonly name: string };

const MARKER = /^\s*(?:\/\/|<!--)\s*#(if|endif)\b\s*(.*?)\s*(?:-->)?\s*$/;

/** Whether a marker's condition holds: `console`, `!console`, or stores joined by `|` (`sqlite|postgres`). */
function holds(condition: string, variant: Variant, where: string): boolean {
  if (condition === 'console') return variant.console;
  if (condition === '!console') return !variant.console;
  const stores = condition.split('|');
  if (stores.length > 0 && stores.every(isStore)) return (stores as Store[]).includes(variant.store);
  throw new Error(`${where}: unknown #if condition "${condition}".`);
}

/**
 * A template's lines for one variant: a block between `// #if <condition>`
 * (or `<!-- #if … -->`) and `// #endif` stays when the condition holds and
 * goes otherwise; the marker lines always go. Blocks do not nest. Throws,
 * naming the file and line, on a nested, unclosed or stray marker.
 */
export function keepVariantLines(text: string, variant: Variant, file: string): string {
  const out: string[] = [];
  let open: { keep: boolean; line: number } | undefined;
  text.split('\n').forEach((line, i) => {
    const where = `${file}:${i + 1}`;
    const marker = MARKER.exec(line);
    if (!marker) {
      if (open?.keep !== false) out.push(line);
      return;
    }
    if (marker[1] === 'if') {
      if (open) throw new Error(`${where}: #if inside the #if of line ${open.line}.`);
      open = { keep: holds(marker[2] ?? '', variant, where), line: i + 1 };
    } else {
      if (!open) throw new Error(`${where}: #endif without #if.`);
      open = undefined;
    }
  });
  if (open) throw new Error(`${file}:${open.line}: #if without #endif.`);
  return out.join('\n');
}

/** Imports of the memory database module, pointed at the chosen store's module. */
export function pointAtStore(text: string, store: Store): string {
  return text.replace(/(['"])((?:\.\.?\/)+(?:src\/)?db\/)memory\.js\1/g, `$1$2${store}.js$1`);
}

/**
 * A template file's text for one variant: its blocks kept or dropped, the
 * database imports pointed at the store, `{{name}}` replaced; in markdown,
 * the blank lines a dropped block leaves behind made one.
 */
export function renderTemplate(text: string, variant: Variant, file: string): string {
  const kept = keepVariantLines(text, variant, file);
  const pointed = file.endsWith('.ts') ? pointAtStore(kept, variant.store) : kept;
  const named = pointed.replaceAll('{{name}}', variant.name);
  return file.endsWith('.md') ? named.replace(/\n{3,}/g, '\n\n') : named;
}
