// A model/request an integration recorded in the app's own process (shadowlog/ai-sdk): its
// `recorder` note says who recorded it and whether the bytes the provider sent were captured. A
// call whose bytes were captured is stored as a proxied one (the bytes and their digest); one
// whose bytes were not is stored with no digest, like an import, and must not be described as
// read from another harness's files.

import type { ModelRequestData } from './event.js';

export interface InProcessRecording {
  /** Who recorded the call: 'shadowlog/ai-sdk'. */
  readonly by: string;
  readonly bytes: 'captured' | 'not-captured';
  /** Why the bytes were not captured. */
  readonly reason?: string;
}

export function inProcessRecording(data: ModelRequestData): InProcessRecording | undefined {
  const note = (data as { recorder?: unknown }).recorder;
  if (typeof note !== 'object' || note === null || Array.isArray(note)) return undefined;
  const { name, bytes, reason } = note as { name?: unknown; bytes?: unknown; reason?: unknown };
  if (typeof name !== 'string' || (bytes !== 'captured' && bytes !== 'not-captured')) return undefined;
  return { by: name, bytes, ...(typeof reason === 'string' ? { reason } : {}) };
}
