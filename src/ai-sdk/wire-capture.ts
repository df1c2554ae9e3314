// The recorder's fetch: the provider calls it with the exact request body it sends, and it hands
// those bytes to the step that is running (the middleware runs each model call inside its own
// async context), then forwards the call unchanged. A call made outside a recorded step, or with
// a body that is not text or bytes, is forwarded and nothing is captured.

import { AsyncLocalStorage } from 'node:async_hooks';

/** The bytes a step sent, or why none were captured. */
export type CapturedBody =
  | { readonly captured: true; readonly bytes: Uint8Array; readonly url: string; readonly requests: number }
  | { readonly captured: false; readonly reason: string };

export class StepCapture {
  private first: { bytes: Uint8Array; url: string } | undefined;
  private requests = 0;
  private unreadable: string | undefined;

  record(url: string, body: unknown): void {
    this.requests++;
    if (this.first !== undefined) return;
    const bytes = bytesOf(body);
    if (bytes === undefined) this.unreadable = `the provider sent a body of type ${describe(body)}, which the recorder does not copy`;
    else this.first = { bytes, url };
  }

  result(fetchGiven: boolean): CapturedBody {
    if (this.first !== undefined) return { captured: true, ...this.first, requests: this.requests };
    if (this.unreadable !== undefined) return { captured: false, reason: this.unreadable };
    return {
      captured: false,
      reason: fetchGiven
        ? "the provider did not call the recorder's fetch for this step: give it createXxx({ fetch: recorder.fetch })"
        : "the recorder's fetch was not given to the provider, so the bytes it sent were not seen",
    };
  }
}

const steps = new AsyncLocalStorage<StepCapture>();

/** Runs `call` with `capture` as the step the fetch reports to. */
export function withCapture<T>(capture: StepCapture, call: () => T): T {
  return steps.run(capture, call);
}

/** A fetch that reports each request body to the running step, then calls `base`. */
export function capturingFetch(base: typeof globalThis.fetch, onUse: () => void): typeof globalThis.fetch {
  return (input, init) => {
    onUse();
    const capture = steps.getStore();
    if (capture !== undefined && init?.body !== undefined && init.body !== null) capture.record(urlOf(input), init.body);
    return base(input, init);
  };
}

function urlOf(input: Parameters<typeof globalThis.fetch>[0]): string {
  if (typeof input === 'string') return input;
  if (input instanceof URL) return input.href;
  return input.url;
}

function bytesOf(body: unknown): Uint8Array | undefined {
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  if (body instanceof Uint8Array) return new Uint8Array(body);
  if (body instanceof ArrayBuffer) return new Uint8Array(body.slice(0));
  if (ArrayBuffer.isView(body)) return new Uint8Array(body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength));
  return undefined;
}

function describe(body: unknown): string {
  return typeof body === 'object' && body !== null ? (body.constructor?.name ?? 'object') : typeof body;
}
