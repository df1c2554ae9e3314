// Where a session came from, read from its first events: which harness wrote it (shadowlog's own,
// the recording proxy, or an import of Claude Code, Codex or pi), that harness's own id of it and
// the working directory (both kept in the source lines an import stores), and the first thing the
// user asked, without the context a harness wraps around it. A pure fold, like the other projections.

import type { LogEvent } from './event.js';
import { isForeignType } from './foreign-event.js';
import { isReplaceOp } from './surface-op.js';

export const SESSION_SOURCES = ['shadowlog', 'proxy', 'claude-code', 'codex', 'pi'] as const;
export type SessionSource = (typeof SESSION_SOURCES)[number];

export interface SessionOrigin {
  readonly source: SessionSource;
  /** The source harness's own id of the session (Claude Code's session uuid, Codex's rollout id, pi's session id). */
  readonly sourceId: string | null;
  /** The working directory the source recorded. */
  readonly project: string | null;
  /** The first request of the user, on one line, at most FIRST_REQUEST_LENGTH characters. */
  readonly firstRequest: string | null;
}

export const FIRST_REQUEST_LENGTH = 200;

/** Source lines parsed at most, looking for the source's id and directory. */
const MAX_PARSED_LINES = 64;

const IMPORTED_SOURCES = ['claude-code', 'codex', 'pi'] as const;
type ImportedSource = (typeof IMPORTED_SOURCES)[number];

// Context a harness sends as a user message around (or instead of) what the user typed.
const CONTEXT_BLOCKS =
  /<(system-reminder|environment_context|user_instructions|local-command-stdout|local-command-stderr|command-message|INSTRUCTIONS)>[\s\S]*?<\/\1>/g;
const COMMAND_PARTS = /<(command-name|command-args)>([\s\S]*?)<\/\1>/g;
const CONTEXT_MESSAGES = /^(?:# AGENTS\.md instructions|Caveat: The messages below were generated)/;

export class SessionOriginFold {
  private foreign: ImportedSource | undefined;
  private provenance: 'imported' | 'proxied' | 'shadowlog' | undefined;
  private sawSourceLines = false;
  private lineShape: ImportedSource | undefined;
  private sourceId: string | undefined;
  private project: string | undefined;
  private firstRequest: string | undefined;
  private parsed = 0;

  constructor(private readonly sessionId: string) {}

  /** True once nothing later can change the origin: reading may stop. */
  get complete(): boolean {
    if (this.firstRequest === undefined || this.provenance === undefined) return false;
    if (this.provenance !== 'imported') return true;
    return (this.sourceId !== undefined && this.project !== undefined) || this.parsed >= MAX_PARSED_LINES;
  }

  apply(event: LogEvent): void {
    const data = event.data as Record<string, unknown>;
    if (isForeignType(event.type)) {
      this.foreign ??= event.type.slice(0, event.type.indexOf('/')) as ImportedSource;
      if (typeof data.text === 'string') this.readLine(data.text);
      return;
    }
    if (Array.isArray(data.sourceLines)) {
      this.sawSourceLines = true;
      for (const line of data.sourceLines) {
        const text = (line as { text?: unknown } | null)?.text;
        if (typeof text === 'string') this.readLine(text);
      }
    }
    if (event.type === 'model/request' && this.provenance === undefined) {
      const provenance = data.provenance;
      this.provenance = provenance === 'imported' || provenance === 'proxied' ? provenance : 'shadowlog';
    } else if (
      event.type === 'user/message' &&
      this.firstRequest === undefined &&
      !isReplaceOp(event.surfaceOp) &&
      data.copyOf === undefined
    ) {
      const text = requestText(data.content);
      if (text !== undefined) this.firstRequest = text;
    }
  }

  origin(): SessionOrigin {
    const source = this.source();
    const prefix = `${source}-`;
    const fromId = this.sessionId.startsWith(prefix) ? this.sessionId.slice(prefix.length) : undefined;
    const imported = source !== 'shadowlog' && source !== 'proxy';
    return {
      source,
      sourceId: imported ? (this.sourceId ?? fromId ?? null) : null,
      project: this.project ?? null,
      firstRequest: this.firstRequest ?? null,
    };
  }

  private source(): SessionSource {
    if (this.foreign !== undefined) return this.foreign;
    if (this.provenance === 'imported' || this.sawSourceLines) {
      const named = IMPORTED_SOURCES.find((source) => this.sessionId.startsWith(`${source}-`));
      return named ?? this.lineShape ?? 'claude-code';
    }
    return this.provenance === 'proxied' ? 'proxy' : 'shadowlog';
  }

  /** Takes the source's id and directory from a line of its file, as each harness writes them. */
  private readLine(text: string): void {
    if ((this.sourceId !== undefined && this.project !== undefined) || this.parsed >= MAX_PARSED_LINES) return;
    this.parsed++;
    let line: unknown;
    try {
      line = JSON.parse(text);
    } catch {
      return; // A line that is not JSON says nothing of the origin; the log keeps it as it was.
    }
    if (typeof line !== 'object' || line === null) return;
    const record = line as Record<string, unknown>;
    const payload = (typeof record.payload === 'object' && record.payload !== null ? record.payload : {}) as Record<string, unknown>;
    if (typeof record.sessionId === 'string') {
      this.lineShape ??= 'claude-code';
      this.sourceId ??= record.sessionId;
    } else if (record.type === 'session_meta') {
      this.lineShape ??= 'codex';
      if (typeof payload.id === 'string') this.sourceId ??= payload.id;
    } else if (record.type === 'session' && typeof record.id === 'string') {
      this.lineShape ??= 'pi';
      this.sourceId ??= record.id;
    }
    const cwd = typeof record.cwd === 'string' ? record.cwd : payload.cwd;
    if (typeof cwd === 'string' && cwd !== '') this.project ??= cwd;
  }
}

/** What the user typed in a message's text blocks, on one line; undefined when it holds only a harness's context. */
function requestText(content: unknown): string | undefined {
  if (!Array.isArray(content)) return undefined;
  const text = content
    .map((block) => ((block as { type?: unknown }).type === 'text' ? String((block as { text?: unknown }).text ?? '') : ''))
    .join(' ');
  if (CONTEXT_MESSAGES.test(text.trimStart())) return undefined;
  const plain = text.replace(COMMAND_PARTS, ' $2 ').replace(CONTEXT_BLOCKS, ' ').replace(/\s+/g, ' ').trim();
  if (plain === '') return undefined;
  if (plain.length <= FIRST_REQUEST_LENGTH) return plain;
  // Cut between characters, never inside a surrogate pair.
  return `${Array.from(plain.slice(0, FIRST_REQUEST_LENGTH)).slice(0, -1).join('')}…`;
}
