// The figures a chaos suite produced, one JSON line per suite, appended to the file named by
// SHADOWLOG_CHAOS_FIGURES (when set) so the README can cite what a run actually did.

import { appendFileSync } from 'node:fs';

export const FIGURES_VARIABLE = 'SHADOWLOG_CHAOS_FIGURES';

export function recordFigures(suite: string, figures: Record<string, unknown>): void {
  const file = process.env[FIGURES_VARIABLE];
  if (file === undefined || file === '') return;
  appendFileSync(file, `${JSON.stringify({ suite, ...figures, at: new Date().toISOString() })}\n`);
}
