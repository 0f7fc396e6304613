// Owns one MCP request's deadline: an AbortSignal that fires when the caller's signal does or
// when the request has waited `timeoutMs` with no sign of life. Progress from the server
// extends it (up to a total cap), and it can be paused while a person is busy with something
// the request waits for (signing in), so a slow person is not a silent server.

/** A request never waits longer than this many times its timeout in all, progress or not. */
const MAX_TOTAL_FACTOR = 10;

export class Deadline {
  /**
   * @param {number} timeoutMs the wait with no sign of life (Infinity: none, for a stream that
   *   stays open)
   * @param {AbortSignal} [outer] the caller's cancellation
   */
  constructor(timeoutMs, outer) {
    this.timeoutMs = timeoutMs;
    this.controller = new AbortController();
    this.timedOut = false;
    this.started = Date.now();
    this.paused = 0;
    this.onOuter = () => this.controller.abort(outer.reason);
    this.outer = outer;
    if (outer?.aborted) this.controller.abort(outer.reason);
    else outer?.addEventListener('abort', this.onOuter, { once: true });
    this.arm();
  }

  /** Aborts when the deadline passes or the caller cancels. */
  get signal() {
    return this.controller.signal;
  }

  arm() {
    clearTimeout(this.timer);
    if (this.paused > 0 || this.controller.signal.aborted || !Number.isFinite(this.timeoutMs)) return;
    const cap = this.started + this.timeoutMs * MAX_TOTAL_FACTOR - Date.now();
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.controller.abort(new DOMException('the MCP server did not answer in time', 'TimeoutError'));
    }, Math.max(0, Math.min(this.timeoutMs, cap)));
  }

  /** The server showed life (progress): the wait starts again, within the total cap. */
  extend() {
    this.arm();
  }

  /** Stops the clock until `resume` (calls nest). */
  pause() {
    this.paused += 1;
    clearTimeout(this.timer);
  }

  resume() {
    this.paused = Math.max(0, this.paused - 1);
    this.arm();
  }

  /** Waits `ms`, or rejects when the deadline fires first. */
  sleep(ms) {
    return new Promise((resolve, reject) => {
      const signal = this.controller.signal;
      if (signal.aborted) return reject(signal.reason);
      const timer = setTimeout(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Releases the timer and the caller's signal. */
  dispose() {
    clearTimeout(this.timer);
    this.outer?.removeEventListener('abort', this.onOuter);
  }
}
