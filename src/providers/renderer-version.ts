// Renderer versions name everything besides the request that decides a body, so that replay
// can render a recorded request again, byte for byte, with the settings it was sent with.

import { ShadowlogError } from '../log/errors.js';

/** A recorded renderer version that this build of an adapter cannot reproduce. */
export class UnknownRendererVersionError extends ShadowlogError {
  readonly rendererVersion: string;
  readonly adapter: string;
  constructor(adapter: string, rendererVersion: string, known: string) {
    super(
      'UNKNOWN_RENDERER_VERSION',
      `the ${adapter} adapter cannot render version ${JSON.stringify(rendererVersion)}; it renders ${known}. The request was recorded by another version of shadowlog: replay it with that version`,
    );
    this.rendererVersion = rendererVersion;
    this.adapter = adapter;
  }
}
