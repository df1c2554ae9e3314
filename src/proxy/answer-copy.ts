// The proxy's copy of an answer, for the record, while the answer itself streams on to the
// client: kept up to maxAnswerBytes. Past that the copy is dropped (the client still gets every
// byte) and the call is recorded as too large, so that an endless or huge answer costs the
// proxy no more memory than the cap.

export class AnswerCopy {
  private chunks: Buffer[] = [];
  /** Bytes received, kept or not. */
  received = 0;
  overflowed = false;

  constructor(readonly limit: number) {}

  add(chunk: Buffer): void {
    this.received += chunk.length;
    if (this.overflowed) return;
    if (this.received > this.limit) {
      this.overflowed = true;
      this.chunks = [];
      return;
    }
    this.chunks.push(chunk);
  }

  get empty(): boolean {
    return this.received === 0;
  }

  /** The bytes kept; empty once the copy overflowed. */
  bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }
}
