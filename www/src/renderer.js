// Renders in a Web Worker so a runaway input never freezes the page: one render in flight,
// only the newest edit waits behind it, and a render that overruns gets its worker replaced.

export const OVERRUN_MS = 2000;

export class Renderer {
  /**
   * @param {() => Worker} spawn creates a worker speaking the worker.js protocol
   * @param {(answer: {output?, error?, ms?}) => void} onAnswer receives each render's answer
   */
  constructor(spawn, onAnswer, { overrunMs = OVERRUN_MS, setTimer = setTimeout, clearTimer = clearTimeout } = {}) {
    this.spawn = spawn;
    this.onAnswer = onAnswer;
    this.overrunMs = overrunMs;
    // Called as plain functions: browsers refuse setTimeout with another `this`.
    this.setTimer = (fn, ms) => setTimer(fn, ms);
    this.clearTimer = (id) => clearTimer(id);
    this.nextId = 1;
    this.inFlight = null; // { id, timer }
    this.pending = null; // the newest request not yet sent
    this.replaced = 0;
    this.worker = this.start();
  }

  start() {
    const worker = this.spawn();
    worker.onmessage = (e) => {
      // When the answer reached the page, for the keystroke measurement (scripts/bench-graph.mjs).
      if (e.data?.phases) e.data.phases.receivedAt = performance.timeOrigin + performance.now();
      this.answered(worker, e.data);
    };
    return worker;
  }

  /** Asks for a render; supersedes any request still waiting. */
  submit(request) {
    this.pending = request;
    if (!this.inFlight) this.sendPending();
  }

  sendPending() {
    const request = this.pending;
    this.pending = null;
    if (request === null) return;
    const id = this.nextId++;
    const timer = this.setTimer(() => this.overrun(id), this.overrunMs);
    this.inFlight = { id, timer };
    this.worker.postMessage({ id, request });
  }

  answered(worker, msg) {
    // A validation follows its render's answer: passed on while its worker is the current one.
    if ('validation' in msg) {
      if (worker === this.worker) this.onAnswer(msg);
      return;
    }
    if (worker !== this.worker || !this.inFlight || msg.id !== this.inFlight.id) return;
    this.clearTimer(this.inFlight.timer);
    this.inFlight = null;
    this.onAnswer(msg);
    this.sendPending();
  }

  overrun(id) {
    if (!this.inFlight || this.inFlight.id !== id) return;
    this.inFlight = null;
    this.worker.terminate();
    this.replaced++;
    this.worker = this.start();
    this.onAnswer({
      id,
      error: {
        kind: 'Timeout',
        message: `render did not finish within ${this.overrunMs} ms; it was stopped`,
        context: {},
      },
    });
    this.sendPending();
  }
}
