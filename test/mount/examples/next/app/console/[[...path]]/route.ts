/**
 * The console as a Next.js route handler, `app/console/[[...path]]/route.ts`:
 * every page under `/console`. Quoted in docs/mounting.md.
 */
import { notes } from '../../../notes.js';

// #region next-console
/** The console's pages and forms; its basePath, '/console', is this route's folder. */
export function GET(request: Request): Promise<Response> {
  return notes.console.fetch(request);
}
export const POST = GET;
// #endregion next-console
