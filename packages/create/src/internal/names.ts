import { builtinModules } from 'node:module';

const NAME = /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/;

/**
 * Why `name` cannot be an npm package name, or `undefined` when it can:
 * lowercase, at most 214 characters, URL-safe characters only, not starting
 * with `.` or `_`, not a Node built-in module's name.
 */
export function packageNameProblem(name: string): string | undefined {
  if (name.length === 0) return 'the name is empty';
  if (name.length > 214) return 'a package name has at most 214 characters';
  if (name !== name.toLowerCase()) return 'a package name is lowercase';
  if (/^[._]/.test(name)) return 'a package name does not start with "." or "_"';
  if (!NAME.test(name))
    return 'a package name holds only letters, digits and "-", ".", "_", "~" (optionally after an @scope/)';
  if (builtinModules.includes(name) || name === 'node_modules' || name === 'favicon.ico')
    return `"${name}" is reserved`;
  return undefined;
}

/** A package name from a folder's last segment: lowercase, spaces and other characters as "-". */
export function nameFromDirectory(directory: string): string {
  const base =
    directory
      .replace(/[\\/]+$/, '')
      .split(/[\\/]/)
      .pop() ?? '';
  return base
    .toLowerCase()
    .replace(/[^a-z0-9._~-]+/g, '-')
    .replace(/^[._-]+/, '')
    .replace(/-+$/, '');
}
