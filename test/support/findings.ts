/** What the checker finds in a text, hints left out (`paginationType` alone gets "no effect in apidsl"). */
import { check } from '../../grammar/checker/index.js';

export interface Finding {
  code: string;
  severity: string;
  message: string;
  /** The text the finding's range covers. */
  at: string;
  suggestion?: string;
}

export const findings = (text: string): Finding[] =>
  check(text)
    .all.filter((d) => d.severity !== 'hint')
    .map((d) => ({
      code: d.code,
      severity: d.severity,
      message: d.message,
      at: text.slice(d.range.start, d.range.end),
      suggestion: d.suggestion,
    }));
