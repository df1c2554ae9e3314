// The bound on calls the proxy has forwarded and not yet written: a call takes a place before it
// is forwarded and gives it back once its request and outcome are in the store (or could not be
// written). A call is written as soon as its outcome arrives and the calls that ended before it
// are written, so a place waits only for the store and for the call's own upstream, never for
// another call's. When the store is slower than the clients, new calls wait for a place
// (back-pressure reaches the clients as latency); none is ever dropped.

export class RecordingQueue {
  private used = 0;
  private readonly waiters: Array<{ readonly grant: () => void; readonly cancel: (reason: Error) => void }> = [];
  /** The most places ever taken at once, and how many calls had to wait. */
  peak = 0;
  waited = 0;

  constructor(readonly capacity: number) {}

  /** Resolves once a place is free; the returned function gives it back (once). Rejects when cancelWaiting ends the wait. */
  async take(): Promise<() => void> {
    if (this.used >= this.capacity) {
      this.waited++;
      await new Promise<void>((resolve, reject) => this.waiters.push({ grant: resolve, cancel: reject }));
    } else {
      this.used++;
    }
    this.peak = Math.max(this.peak, this.used);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const next = this.waiters.shift();
      // The place passes straight to the next waiter.
      if (next !== undefined) next.grant();
      else this.used--;
    };
  }

  get pending(): number {
    return this.used;
  }

  /** Calls waiting for a place now. */
  get waiting(): number {
    return this.waiters.length;
  }

  /** Ends every wait, rejected with `reason` (the proxy is stopping): those calls are not forwarded. */
  cancelWaiting(reason: Error): void {
    for (const waiter of this.waiters.splice(0)) waiter.cancel(reason);
  }
}
