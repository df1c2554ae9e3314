// `shadowlog search` (issue 26, item 3) as a user asks it of the sessions their harnesses wrote:
// "which session read transcript_components.ex?", "where did this error first appear?". Each hit
// names its session, seq and turn/step with a snippet, and says whether it is on the surface or a
// shadowed original.
// (`search --json`: {hits: [{sessionId, seq, type, kind, turn, step, place, shadowedBy, snippet}]}.)

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarnessHome, type HarnessHome, type LaidOutSession } from './support/harness-home.js';
import { type JourneyResult, shadowlog } from './support/journey-cli.js';
import { unreadableLines } from './support/reads-like-a-person.js';

interface Hit {
  readonly sessionId: string;
  readonly seq: number;
  readonly type: string;
  readonly kind: string;
  readonly turn?: number;
  readonly step?: number;
  readonly place: 'surface' | 'shadowed' | 'log-only';
  readonly shadowedBy?: number;
  readonly snippet: string;
}

describe('searching the sessions of three harnesses', () => {
  let home: HarnessHome;
  let claude: LaidOutSession;
  let text: JourneyResult;
  let hits: Hit[];
  beforeAll(async () => {
    home = createHarnessHome();
    claude = home.session('claude-code', '4d5611e5');
    for (const root of Object.values(home.roots)) expect((await shadowlog(home, ['import', root])).code).toBe(0);
    text = await shadowlog(home, ['search', 'transcript_components.ex']);
    const json = await shadowlog(home, ['--json', 'search', 'transcript_components.ex']);
    hits = (JSON.parse(json.stdout) as { hits: Hit[] }).hits;
  });
  afterAll(() => home?.cleanup());

  it('finds the file path, first where a tool result showed it, with its session, seq and turn', () => {
    expect({ code: text.code, stderr: text.stderr }).toEqual({ code: 0, stderr: '' });
    expect(unreadableLines(text.stdout, { ownLines: (line) => !line.startsWith('    ') })).toEqual([]);
    const lines = text.stdout.trimEnd().split('\n');
    // The session named on a line of its own, then its hits in order, each with seq, turn and step.
    expect(lines[0]).toBe(claude.storeId);
    expect(lines[1]).toBe('  #33  turn 1 step 2  tool-result (tool/result)  shadowed by #761');
    expect(lines[2]).toContain('lib/spotter_web/components/transcript_components.ex');
    expect(lines.at(-1)).toBe(`${hits.length} hits in 2 sessions`);
    const first = hits.filter((hit) => hit.sessionId === claude.storeId).sort((a, b) => a.seq - b.seq)[0];
    expect(first).toMatchObject({ seq: 33, type: 'tool/result', kind: 'tool-result', turn: 1, place: 'shadowed', shadowedBy: 761 });
    expect(first?.snippet).toContain('transcript_components.ex');
  });

  it('tells the shadowed originals from what is on the surface', () => {
    const places = new Set(hits.filter((hit) => hit.sessionId === claude.storeId).map((hit) => hit.place));
    expect(places).toEqual(new Set(['shadowed', 'surface']));
    expect(hits.find((hit) => hit.sessionId === claude.storeId && hit.seq === 761)).toMatchObject({ place: 'surface', kind: 'summary' });
    expect(text.stdout).toContain('  #761  turn 2 step 43  summary (user/message)  on the surface');
  });

  it('--session and --type narrow the hits', async () => {
    const narrowed = await shadowlog(home, [
      '--json',
      'search',
      'transcript_components.ex',
      '--session',
      claude.sourceId.slice(0, 8),
      '--type',
      'tool-call',
    ]);
    expect(narrowed.code).toBe(0);
    const found = (JSON.parse(narrowed.stdout) as { hits: Hit[] }).hits;
    expect(found).toHaveLength(10);
    expect(found.every((hit) => hit.sessionId === claude.storeId && hit.kind === 'tool-call')).toBe(true);
  });

  it('--regex finds where an error was first raised', async () => {
    const regex = await shadowlog(home, ['--json', 'search', '--regex', 'raise\\s+CompileError']);
    expect(regex.code).toBe(0);
    const found = (JSON.parse(regex.stdout) as { hits: Hit[] }).hits;
    expect(found.map((hit) => [hit.sessionId, hit.seq])).toEqual([[claude.storeId, 141]]);
  });

  it("finds a tool call's arguments in a pi session and a Codex one alike", async () => {
    const pi = await shadowlog(home, ['--json', 'search', '/Users/badlogic/workspaces/pi-mono', '--session', home.session('pi').storeId]);
    expect((JSON.parse(pi.stdout) as { hits: Hit[] }).hits.length).toBeGreaterThan(0);
    const codex = await shadowlog(home, ['--json', 'search', 'chatbot-ui']);
    expect(
      (JSON.parse(codex.stdout) as { hits: Hit[] }).hits.some((hit) => hit.sessionId === home.session('codex', '019a93b9').storeId),
    ).toBe(true);
  });

  it('says plainly when nothing matches', async () => {
    const none = await shadowlog(home, ['search', 'zq-nothing-has-this-qz']);
    expect(none.stderr).toBe('');
    expect(none.code).toBe(0);
    expect(none.stdout).toBe('no hits for "zq-nothing-has-this-qz"\n');
    expect(unreadableLines(none.stdout)).toEqual([]);
  });
});
