// The records of one Claude Code conversation (a main transcript, or a sidechain) mapped into a
// session. Claude Code writes each content block of an answer as its own line, all with the
// same message id, and the results of parallel tool calls between them: those lines are one
// model call, so they are gathered into one assistant message, and the lines that came between
// them follow it in their order. A compact_boundary and the isCompactSummary message after it
// are a compaction that replaces everything before it.
//
// Nothing in an answer's lines says it is the last one, so an answer is complete when a record
// that is not part of it comes (another answer, the user's input, a compact boundary, or the
// records Claude Code writes when the model stops: stop_hook_summary, turn_duration), or a line
// of it names its stop reason (older versions); until then
// its events are not settled (session-builder.ts), and an import of a live file holds them back.

import type { Usage } from '../../log/event.js';
import type { SourceLineRef } from '../imported-call.js';
import type { SessionBuilder } from '../session-builder.js';
import type { SourceRecord } from '../source-file.js';
import { arrayOf, objectOf, type SourceObject, stringOf } from '../source-values.js';
import { mapClaudeCompaction } from './claude-compaction.js';
import { claudeAssistantContent, claudeContent, claudeUsage } from './claude-content.js';

/** The summarizer's transcript behind a compaction, when the import has it. */
export interface SummarizerLink {
  readonly sessionId: string;
  readonly model: string;
  readonly usage: Usage | null;
}

export interface ClaudeSessionLinks {
  /** The summarizer transcript of the compaction whose boundary was written at `time`, if the import holds it. */
  readonly summarizerFor: (time: string) => SummarizerLink | undefined;
}

interface AnswerGroup {
  readonly messageId: string;
  readonly lines: SourceRecord[];
  /** Records that came between its lines (tool results of its calls, progress), mapped after it. */
  readonly between: SourceRecord[];
}

export class ClaudeSessionMapper {
  /** Subagents the session spawned: agentId → the id of the Task call whose result names it. */
  readonly agentCalls = new Map<string, string>();
  /** The Task calls the session made, with their prompts (old transcripts hold their sidechains inline). */
  readonly taskCalls: Array<{ readonly id: string; readonly prompt: string }> = [];
  private group: AnswerGroup | undefined;
  private boundary: SourceRecord | undefined;
  private model = 'unknown';

  constructor(
    private readonly builder: SessionBuilder,
    private readonly links: ClaudeSessionLinks,
  ) {}

  map(records: readonly SourceRecord[]): void {
    for (const record of records) this.feed(record);
    this.end(records[records.length - 1]);
  }

  /** Maps one record (an answer's lines wait for the record after them). */
  feed(record: SourceRecord): void {
    this.builder.guard(record, () => this.record(record));
    if (this.group === undefined && this.boundary === undefined) this.builder.settle();
  }

  /** The end of the records: the last answer is mapped. */
  end(last: SourceRecord | undefined): void {
    if (last !== undefined) this.builder.guard(last, () => this.flush());
    if (this.boundary !== undefined) {
      this.builder.unmappedRecord(this.boundary, 'system-compact-boundary', 'a compact boundary with no compact summary after it');
    }
    this.builder.finish();
  }

  /** Maps the answer still open, as the end of the records would; true when no compaction waits for its summary. */
  settleNow(): boolean {
    this.flush();
    return this.boundary === undefined;
  }

  /**
   * Whether every record fed so far is in the builder's events, once `next` comes: an answer
   * that `next` would end is mapped now (as `next` would have it), and no compaction waits for
   * its summary. A branch can leave its parent only at such a point.
   */
  settledBefore(next: SourceRecord): boolean {
    if (this.group !== undefined && endsAnswer(next, this.group.messageId)) this.builder.guard(next, () => this.flush());
    return this.group === undefined && this.boundary === undefined;
  }

  private record(record: SourceRecord): void {
    const type = stringOf(record.value.type) ?? 'record';
    if (type === 'assistant') {
      const message = objectOf(record.value.message);
      const messageId = stringOf(message?.id) ?? stringOf(record.value.uuid) ?? `line-${record.line}`;
      if (this.group?.messageId === messageId) this.group.lines.push(record);
      else {
        this.flush();
        if (this.boundary === undefined) this.builder.settle();
        this.group = { messageId, lines: [record], between: [] };
      }
      // A stop reason is written with an answer's last line (older versions write one line per answer).
      if (typeof message?.stop_reason === 'string') this.flush();
      return;
    }
    const endsAnswer = (type === 'user' && !isOnlyToolResults(record)) || isCompactBoundary(record) || isStopRecord(record);
    if (this.group !== undefined && !endsAnswer) {
      this.group.between.push(record);
      return;
    }
    this.flush();
    this.mapNow(record, type);
  }

  private mapNow(record: SourceRecord, type: string): void {
    this.builder.reading(record);
    this.noteAgentProgress(record);
    if (type === 'user') this.mapUser(record);
    else if (isCompactBoundary(record)) {
      if (this.boundary !== undefined) {
        this.builder.unmappedRecord(this.boundary, 'system-compact-boundary', 'a compact boundary with no compact summary after it');
      }
      this.boundary = record;
    } else if (type === 'system') this.builder.foreign(record, `system-${stringOf(record.value.subtype) ?? 'message'}`);
    else this.builder.foreign(record, type);
  }

  /**
   * A subagent's progress, written while its Task call runs, names the agent and the call: the
   * link is known before the call's result (which names the agent too) is written.
   */
  private noteAgentProgress(record: SourceRecord): void {
    const data = objectOf(record.value.data);
    const agentId = stringOf(data?.agentId);
    const callId = stringOf(record.value.parentToolUseID);
    if (record.value.type !== 'progress' || data?.type !== 'agent_progress' || agentId === undefined || callId === undefined) return;
    if (!this.agentCalls.has(agentId)) this.agentCalls.set(agentId, callId);
  }

  private flush(): void {
    const group = this.group;
    if (group === undefined) return;
    this.group = undefined;
    this.mapAnswer(group.lines);
    for (const record of group.between) this.mapNow(record, stringOf(record.value.type) ?? 'record');
  }

  private mapAnswer(lines: readonly SourceRecord[]): void {
    const first = lines[0] as SourceRecord;
    const last = lines[lines.length - 1] as SourceRecord;
    const message = objectOf(first.value.message) ?? {};
    const model = stringOf(message.model) ?? 'unknown';
    this.builder.reading(...lines);
    if (model === '<synthetic>') {
      this.mapSynthetic(lines);
      return;
    }
    this.model = model;
    const content = [];
    const toolCalls = [];
    for (const line of lines) {
      const blocks = arrayOf(objectOf(line.value.message)?.content);
      const mapped = claudeAssistantContent(blocks, line.line, this.builder);
      content.push(...mapped.content);
      toolCalls.push(...mapped.toolCalls);
    }
    for (const call of toolCalls) {
      const prompt = stringOf(objectOf(call.arguments)?.prompt);
      if (call.name === 'Task' && prompt !== undefined) this.taskCalls.push({ id: call.id, prompt });
    }
    // Each line repeats the usage; the last holds the final output count.
    const usage = claudeUsage(objectOf(last.value.message)?.usage);
    this.builder.call({
      provider: 'anthropic',
      model,
      content,
      toolCalls,
      ...(usage === undefined ? {} : { usage }),
      sourceLines: lines.map((line) => ({ line: line.line, text: line.text })),
    });
  }

  /** An answer Claude Code wrote itself: an API error it recorded (a failed call), or a note that no model wrote. */
  private mapSynthetic(lines: readonly SourceRecord[]): void {
    for (const line of lines) {
      if (line.value.isApiErrorMessage === true) {
        const text = claudeContent(objectOf(line.value.message)?.content, line.line, this.builder)
          .map((block) => (block.type === 'text' ? block.text : ''))
          .join('\n');
        this.builder.failedCall({
          provider: 'anthropic',
          model: this.model,
          code: 'api-error',
          message: text,
          sourceLines: [{ line: line.line, text: line.text }],
        });
      } else {
        this.builder.unmappedRecord(
          line,
          'synthetic-message',
          "a message Claude Code wrote itself (model <synthetic>), not a model's answer, and not sent to the model",
        );
      }
    }
  }

  private mapUser(record: SourceRecord): void {
    const message = objectOf(record.value.message) ?? {};
    if (record.value.isCompactSummary === true) {
      const boundary = this.boundary;
      this.boundary = undefined;
      mapClaudeCompaction(this.builder, { boundary, summary: record, model: this.model, links: this.links });
      return;
    }
    const content = message.content;
    const results = arrayOf(content).filter((block) => objectOf(block)?.type === 'tool_result');
    const others = typeof content === 'string' ? content : arrayOf(content).filter((block) => objectOf(block)?.type !== 'tool_result');
    let keeper: SourceLineRef = { line: record.line, text: record.text };
    let mapped = false;
    const refused: string[] = [];
    for (const result of results) {
      const block = objectOf(result) as SourceObject;
      const callId = stringOf(block.tool_use_id) ?? '';
      const data = {
        content: claudeContent(block.content ?? [], record.line, this.builder, 'tool result'),
        ...(block.is_error === true ? { error: true as const } : {}),
      };
      if (this.builder.toolResult(callId, data, [keeper])) {
        keeper = { line: record.line };
        mapped = true;
      } else refused.push(callId);
    }
    const agentId = stringOf(objectOf(record.value.toolUseResult)?.agentId);
    const resultId = stringOf(objectOf(results[0])?.tool_use_id);
    if (agentId !== undefined && resultId !== undefined && !this.agentCalls.has(agentId)) this.agentCalls.set(agentId, resultId);
    const blocks = others.length === 0 ? [] : claudeContent(others, record.line, this.builder);
    if (blocks.length > 0 || (results.length === 0 && refused.length === 0)) {
      const startsTurn = results.length === 0 && record.value.isMeta !== true;
      this.builder.message('user/message', { content: blocks, sourceLines: [keeper] }, { startsTurn });
      mapped = true;
    }
    const why = (callId: string) => `the result of tool call ${JSON.stringify(callId)}, which no message on the surface is waiting for`;
    if (!mapped) this.builder.unmappedRecord(record, 'tool-result', refused.map(why).join('; '));
    else for (const callId of refused) this.builder.note(record.line, `${why(callId)}; it is left out`);
  }
}

/** Whether `record` ends the answer of `messageId` (it is neither a line of it nor a record that comes between its lines). */
function endsAnswer(record: SourceRecord, messageId: string): boolean {
  const type = stringOf(record.value.type) ?? 'record';
  if (type === 'assistant') {
    const message = objectOf(record.value.message);
    return (stringOf(message?.id) ?? stringOf(record.value.uuid) ?? `line-${record.line}`) !== messageId;
  }
  return (type === 'user' && !isOnlyToolResults(record)) || isCompactBoundary(record) || isStopRecord(record);
}

function isOnlyToolResults(record: SourceRecord): boolean {
  const content = objectOf(record.value.message)?.content;
  return Array.isArray(content) && content.length > 0 && content.every((block) => objectOf(block)?.type === 'tool_result');
}

/** What Claude Code writes once the model has stopped answering: no line of that answer follows. */
function isStopRecord(record: SourceRecord): boolean {
  return record.value.type === 'system' && (record.value.subtype === 'stop_hook_summary' || record.value.subtype === 'turn_duration');
}

function isCompactBoundary(record: SourceRecord): boolean {
  return record.value.type === 'system' && record.value.subtype === 'compact_boundary';
}
