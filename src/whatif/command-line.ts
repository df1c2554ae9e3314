// The command line that asks a recorded call again with the originals its surface's compactions
// and prunes shadowed (`shadowlog whatif … --restore all`), for a reader to copy: the audit page
// offers it on each call after a compaction.

export interface WhatIfCommandOptions {
  /** What to restore: every replacement (the default), or these compaction ids and seqs. */
  readonly restore?: 'all' | readonly string[];
  /** The store to name, when it is not the default one (sqlite:PATH, postgres://…). */
  readonly store?: string;
  /** The program to name (default `shadowlog`; `npx shadowlog` where it is not installed). */
  readonly program?: string;
}

/** `shadowlog whatif <id> --turn N --step K --restore all`, its arguments quoted for a POSIX shell where they need it. */
export function whatifCommandLine(
  sessionId: string,
  call: { readonly turn: number; readonly step: number },
  options: WhatIfCommandOptions = {},
): string {
  const restore = options.restore ?? 'all';
  const words = [
    options.program ?? 'shadowlog',
    ...(options.store === undefined ? [] : ['--store', shellWord(options.store)]),
    'whatif',
    shellWord(sessionId),
    '--turn',
    String(call.turn),
    '--step',
    String(call.step),
    '--restore',
    ...(restore === 'all' ? ['all'] : restore.map(shellWord)),
  ];
  return words.join(' ');
}

/** A word as a POSIX shell reads it back unchanged: as it is when it holds only safe characters, else single-quoted. */
function shellWord(word: string): string {
  if (/^[A-Za-z0-9._/:@%+=,-]+$/.test(word)) return word;
  return `'${word.replaceAll("'", "'\\''")}'`;
}
