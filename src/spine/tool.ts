// Tools the model may call: a name, a description, a schema for the arguments, and an
// execute function. A tool that throws produces a tool/result with `error`; it never
// crashes the turn.

import { z } from 'zod';
import { ConfigError } from '../log/errors.js';
import type { ContentBlock, JsonObject } from '../log/event.js';
import type { ToolDefinition } from '../providers/language-model.js';

export interface ToolContext {
  readonly sessionId: string;
  readonly callId: string;
  readonly signal: AbortSignal;
}

export type ToolOutput = string | ContentBlock[];

export type ParsedArguments<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly message: string };

/** A tool the model can call: its name, description and JSON schema, and what it does. Made with defineTool. */
export interface Tool<T = unknown> {
  readonly definition: ToolDefinition;
  /**
   * Checks the model's arguments, the JSON value it wrote (text that was not JSON never gets
   * here: the spine answers it); a failure becomes a tool/result error the model can read.
   */
  parse(args: unknown): ParsedArguments<T>;
  execute(args: T, context: ToolContext): Promise<ToolOutput>;
}

const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

export interface ToolSpec<S extends z.ZodType> {
  readonly name: string;
  readonly description: string;
  /** A zod schema of the arguments object; its JSON Schema is what the model is shown. */
  readonly input: S;
  readonly execute: (args: z.infer<S>, context: ToolContext) => Promise<ToolOutput> | ToolOutput;
}

/** A tool whose arguments are checked against a zod schema before `execute` sees them. */
export function defineTool<S extends z.ZodType>(spec: ToolSpec<S>): Tool<z.infer<S>> {
  if (!TOOL_NAME.test(spec.name)) {
    throw new ConfigError('name', `a tool name must match ${TOOL_NAME} (what providers accept), found ${JSON.stringify(spec.name)}`);
  }
  const { $schema: _dialect, ...parameters } = z.toJSONSchema(spec.input) as JsonObject;
  if (parameters.type !== 'object')
    throw new ConfigError('input', `tool ${spec.name}: the input schema must describe an object, found ${JSON.stringify(parameters.type)}`);
  return {
    definition: { name: spec.name, description: spec.description, parameters },
    parse(args) {
      const result = spec.input.safeParse(args);
      if (result.success) return { ok: true, value: result.data };
      const issues = result.error.issues.map(
        (issue) => `${issue.path.length === 0 ? '(arguments)' : issue.path.join('.')}: ${issue.message}`,
      );
      return { ok: false, message: `invalid arguments for ${spec.name}: ${issues.join('; ')}` };
    },
    execute: async (args, context) => spec.execute(args, context),
  };
}

/** Checks a tool set: unique names. */
export function indexTools(tools: readonly Tool[]): Map<string, Tool> {
  const byName = new Map<string, Tool>();
  for (const tool of tools) {
    if (byName.has(tool.definition.name))
      throw new ConfigError('tools', `two tools are named ${tool.definition.name}; tool names must be unique`);
    byName.set(tool.definition.name, tool);
  }
  return byName;
}
