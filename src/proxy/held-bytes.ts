// The bound on request bodies the proxy holds at once, across calls (--max-held-bytes): a
// recorded call's body is read whole, and kept until its request is written. Before its body is
// read a call reserves its declared length (a chunked upload, whose length is unknown, reserves
// --max-request-bytes, and gives back the rest once it is read); when the reservation does not
// fit, the call waits, unread, first come first served, so that --queue and this bound together
// hold the proxy's memory whatever clients send. Every reservation fits the bound on its own
// (it is at least --max-request-bytes), so waiting always ends.

/** A reservation of held bytes: shrunk to what the body turned out to be, released once (later calls are idempotent). */
export interface HeldReservation {
  shrink(bytes: number): void;
  release(): void;
}

export class HeldBytes {
  private used = 0;
  private readonly waiters: Array<{ readonly bytes: number; readonly grant: () => void; readonly cancel: (reason: Error) => void }> = [];
  /** Calls that had to wait for their reservation. */
  waited = 0;

  constructor(readonly capacity: number) {}

  /** Resolves with a reservation of `bytes` (at most the capacity) once it fits; rejects when cancelWaiting ends the wait. */
  async take(bytes: number): Promise<HeldReservation> {
    let held = Math.min(bytes, this.capacity);
    if (this.waiters.length > 0 || this.used + held > this.capacity) {
      this.waited++;
      await new Promise<void>((resolve, reject) => this.waiters.push({ bytes: held, grant: resolve, cancel: reject }));
    } else {
      this.used += held;
    }
    let released = false;
    return {
      shrink: (actual) => {
        if (released || actual >= held) return;
        this.used -= held - actual;
        held = actual;
        this.grant();
      },
      release: () => {
        if (released) return;
        released = true;
        this.used -= held;
        this.grant();
      },
    };
  }

  /** Bytes reserved now. */
  get reserved(): number {
    return this.used;
  }

  /** Ends every wait, rejected with `reason` (the proxy is stopping). */
  cancelWaiting(reason: Error): void {
    for (const waiter of this.waiters.splice(0)) waiter.cancel(reason);
  }

  /** Grants waiting reservations in order, as long as the first fits. */
  private grant(): void {
    for (;;) {
      const next = this.waiters[0];
      if (next === undefined || this.used + next.bytes > this.capacity) return;
      this.waiters.shift();
      this.used += next.bytes;
      next.grant();
    }
  }
}
