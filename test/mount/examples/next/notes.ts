/**
 * The notes product of the Next.js app: one instance, imported by both route
 * modules (in a real app, `lib/notes.ts` behind the `@/` alias).
 */
import { notesProduct } from '../notes.js';

export const notes = notesProduct({ origin: () => process.env.NOTES_ORIGIN ?? 'http://localhost:3000' });
