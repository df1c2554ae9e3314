// The renderer versions of the chat-completions adapter, and the settings each names, so that
// replay renders a recorded request with the settings it was sent with, whatever the adapter
// is configured with today. Version 3 spells its settings out, key by key:
//
//   openai-chat/3;tokens=max_tokens;arguments=object;reasoning=deepseek;reasoning-fill
//
// - tokens: the field that carries the output budget (max_completion_tokens: OpenAI, whose
//   reasoning models refuse the other; max_tokens: DeepSeek and Ollama read only this one).
// - arguments: how a tool call's arguments go back. verbatim: the text the model wrote, byte for
//   byte (OpenAI takes any text); object: that text when it is a JSON object, else {} (Ollama and
//   vLLM parse the arguments of every message and refuse the whole request otherwise; the log
//   keeps what the model wrote, and the tool's error result tells the model).
// - reasoning=TAG: reasoning blocks of provider TAG go back as reasoning_content on the
//   assistant messages that call tools (DeepSeek requires it in thinking mode);
//   reasoning-fill: such a message without one gets an empty reasoning_content (DeepSeek
//   answers 400 when the field is missing).

import { UnknownRendererVersionError } from '../renderer-version.js';
import type { OpenAIChatRenderSettings } from './convert-messages.js';

/** Versions 1 and 2, named in full: they were recorded before settings were spelled out. */
const EARLIER: Readonly<Record<string, OpenAIChatRenderSettings>> = {
  'openai-chat/2': { maxTokensField: 'max_completion_tokens', toolArguments: 'verbatim' },
  'openai-chat/2;max_tokens': { maxTokensField: 'max_tokens', toolArguments: 'verbatim' },
  'openai-chat/1': { maxTokensField: 'max_completion_tokens', toolArguments: 'canonical' },
  'openai-chat/1;max_tokens': { maxTokensField: 'max_tokens', toolArguments: 'canonical' },
};

const V3 = 'openai-chat/3';
const KNOWN = `${Object.keys(EARLIER).join(' or ')} or ${V3};tokens=…;arguments=…[;reasoning=TAG[;reasoning-fill]]`;

/** The version string of a configuration: version 2's names where they say it all, else version 3's. */
export function openAIChatRendererVersion(settings: OpenAIChatRenderSettings): string {
  if (settings.reasoning === undefined && settings.toolArguments === 'verbatim') {
    return settings.maxTokensField === 'max_tokens' ? 'openai-chat/2;max_tokens' : 'openai-chat/2';
  }
  const parts = [V3, `tokens=${settings.maxTokensField}`, `arguments=${settings.toolArguments}`];
  if (settings.reasoning !== undefined) {
    parts.push(`reasoning=${settings.reasoning.provider}`);
    if (settings.reasoning.fill) parts.push('reasoning-fill');
  }
  return parts.join(';');
}

export function openAIChatSettingsOf(version: string): OpenAIChatRenderSettings {
  const earlier = EARLIER[version];
  if (earlier !== undefined) return earlier;
  const [name, ...parts] = version.split(';');
  const fields = new Map(parts.map((part) => [part.split('=')[0] ?? '', part.includes('=') ? part.slice(part.indexOf('=') + 1) : true]));
  const tokens = fields.get('tokens');
  const toolArguments = fields.get('arguments');
  const reasoning = fields.get('reasoning');
  const fill = fields.get('reasoning-fill');
  const known = new Set(['tokens', 'arguments', 'reasoning', 'reasoning-fill']);
  const valid =
    name === V3 &&
    (tokens === 'max_tokens' || tokens === 'max_completion_tokens') &&
    (toolArguments === 'verbatim' || toolArguments === 'object') &&
    (reasoning === undefined || (typeof reasoning === 'string' && /^[a-z0-9][a-z0-9._-]*$/.test(reasoning))) &&
    (fill === undefined || (fill === true && reasoning !== undefined)) &&
    [...fields.keys()].every((key) => known.has(key)) &&
    fields.size === parts.length;
  if (!valid) throw new UnknownRendererVersionError('openai-chat', version, KNOWN);
  return {
    maxTokensField: tokens,
    toolArguments,
    ...(typeof reasoning === 'string' ? { reasoning: { provider: reasoning, fill: fill === true } } : {}),
  };
}
