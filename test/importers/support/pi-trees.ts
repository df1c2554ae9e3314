// Session trees written by pi itself (@mariozechner/pi-coding-agent's SessionManager, as the
// coding agent writes them), for the tests of the pi importer's branches: messages, tool calls
// and their results, branches made with branch() and branchWithSummary(), and what pi's own
// buildSessionContext shows the model for any leaf.

import { readFileSync } from 'node:fs';
import { buildSessionContext, convertToLlm, type SessionEntry, SessionManager } from '@mariozechner/pi-coding-agent';

const USAGE = {
  input: 100,
  output: 20,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 120,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};

/** A pi session writer in `sessionDir`, for a session run in `cwd`, with small helpers for its messages. */
export function piSession(cwd: string, sessionDir: string) {
  const manager = SessionManager.create(cwd, sessionDir);
  let clock = Date.parse('2026-11-01T10:00:00.000Z');
  const now = () => (clock += 1000);
  return {
    manager,
    user(text: string): string {
      return manager.appendMessage({ role: 'user', content: text, timestamp: now() });
    },
    assistant(text: string, toolCalls: ReadonlyArray<{ id: string; name: string; arguments: Record<string, unknown> }> = []): string {
      return manager.appendMessage({
        role: 'assistant',
        content: [{ type: 'text', text }, ...toolCalls.map((call) => ({ type: 'toolCall' as const, ...call }))],
        api: 'anthropic-messages',
        provider: 'anthropic',
        model: 'claude-sonnet-4-5',
        usage: USAGE,
        stopReason: toolCalls.length === 0 ? 'stop' : 'toolUse',
        timestamp: now(),
      });
    },
    toolResult(toolCallId: string, toolName: string, text: string): string {
      return manager.appendMessage({
        role: 'toolResult',
        toolCallId,
        toolName,
        content: [{ type: 'text', text }],
        isError: false,
        timestamp: now(),
      });
    },
    get file(): string {
      return manager.getSessionFile() as string;
    },
  };
}

/** What pi shows the model at `leafId` of the file at `path`: each message's role (as shadowlog names it) and text. */
export function piContextAt(path: string, leafId: string): Array<{ role: string; text: string }> {
  const entries = readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as { type: string })
    .filter((entry) => entry.type !== 'session') as SessionEntry[];
  // As pi sends them: its branch and compaction summaries become user messages with its wording.
  return convertToLlm(buildSessionContext(entries, leafId).messages).map((message) => {
    const role = message.role === 'assistant' ? 'assistant' : message.role === 'toolResult' ? 'tool' : 'user';
    const text =
      typeof message.content === 'string'
        ? message.content
        : (message.content as ReadonlyArray<{ type: string; text?: string }>)
            .filter((block) => block.type === 'text')
            .map((block) => block.text ?? '')
            .join('');
    return { role, text };
  });
}
