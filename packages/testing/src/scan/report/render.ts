import type { ScanFormat } from '../cliArgs.js';
import type { ScanReport } from '../types.js';
import { renderMarkdown } from './markdown.js';
import { renderSarif } from './sarif.js';
import { renderText } from './text.js';

/** The report in one of the CLI's formats. */
export function renderScanReport(report: ScanReport, format: ScanFormat): string {
  switch (format) {
    case 'json':
      return `${JSON.stringify(report, null, 2)}\n`;
    case 'sarif':
      return `${JSON.stringify(renderSarif(report), null, 2)}\n`;
    case 'markdown':
      return renderMarkdown(report);
    default:
      return renderText(report);
  }
}
