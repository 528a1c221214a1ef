// `npm start`: builds only what the booking example needs and is out of date
// (scripts/buildCurrent.mjs), then serves the example in this process.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildCurrent } from './buildCurrent.mjs';
import { root } from './packing.mjs';

try {
  buildCurrent(['@gatehousejs/example-booking']);
} catch (error) {
  process.stderr.write(`Error: ${error.message}\n`);
  process.exit(1);
}
await import(pathToFileURL(join(root, 'examples/booking/dist/main.js')).href);
