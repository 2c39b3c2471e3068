// Renders in a Web Worker so a runaway input never freezes the page: one render in flight,
// only the newest edit waits behind it, and a render that overruns gets its worker replaced.
//
// An edit whose render is known to be cheap is rendered on the page's thread instead (`inline`),
// before the frame that shows the keystroke, so its output is in that same frame: a worker's
// answer waits for the page's thread, which draws the keystroke's frame first. The worker then
// runs only the validator for it. An edit goes inline when one of the last two renders cost less
// than INLINE_MS (parse, engine, presentation) and the last not over four times that, nothing
// waits in the worker, and the texts' lengths changed by less than INLINE_CHANGE characters with
// the same settings: a keystroke, not a paste or a new example, which go to the worker where an
// overrun can be stopped.

export const OVERRUN_MS = 2000;
export const INLINE_MS = 16;
export const INLINE_CHANGE = 256;

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
    this.inFlight = null; // { id, timer, request }
    this.pending = null; // the newest request not yet sent
    this.replaced = 0;
    /** The page's own responder (inline.js), once loaded; the last render's cost and request. */
    this.inline = null;
    this.costs = [Infinity];
    this.last = null;
    this.scheduled = false;
    this.worker = this.start();
  }

  /**
   * Renders cheap edits with `respond(id, request)` on the page's thread from now on. `warm`, a
   * request rendered first and not answered, readies the responder (the engine's code compiled,
   * the editors' YAML read and the output's written), so a first keystroke costs what the next do.
   */
  setInline(respond, warm = null) {
    if (warm) {
      try {
        respond(0, warm);
      } catch {
        return;
      }
    }
    this.inline = respond;
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
    if (this.inFlight) return;
    if (!this.goesInline(request)) return this.sendPending();
    // After the editor's own update (a render inside it could not mark its problems), still
    // before the frame.
    if (!this.scheduled) {
      this.scheduled = true;
      queueMicrotask(() => this.renderInline());
    }
  }

  goesInline(request) {
    const last = this.last;
    // The cheaper of the last two renders: one slowed by the machine's other work does not send
    // the next keystroke away; a render well over a frame does.
    const [previous, latest = Infinity] = this.costs;
    if (!this.inline || !last || Math.min(previous, latest) >= INLINE_MS || latest >= 4 * INLINE_MS) return false;
    if (request.semantics !== last.semantics || JSON.stringify(request.iterate) !== JSON.stringify(last.iterate)) return false;
    const texts = request.texts ?? {};
    const before = last.texts ?? {};
    let change = 0;
    for (const k of new Set([...Object.keys(texts), ...Object.keys(before)])) {
      change += Math.abs((texts[k] ?? '').length - (before[k] ?? '').length);
    }
    return change < INLINE_CHANGE;
  }

  renderInline() {
    this.scheduled = false;
    const request = this.pending;
    if (request === null || this.inFlight) return;
    this.pending = null;
    const id = this.nextId++;
    let answer;
    try {
      answer = this.inline(id, request);
    } catch {
      // The page's engine failed where the worker's would answer: the worker renders from now on.
      this.inline = null;
      this.pending = request;
      return this.sendPending();
    }
    const { message, built, unused } = answer;
    this.noteCost(request, message);
    if (message.phases) {
      message.phases.receivedAt = performance.timeOrigin + performance.now();
      message.phases.inline = true;
    }
    this.onAnswer(message);
    if (built?.request) this.worker.postMessage({ id, validate: request, unused });
  }

  noteCost(request, message) {
    const p = message.phases;
    this.costs = [this.costs.at(-1), p ? p.parse + p.render + p.present + p.graphData : Infinity];
    this.last = request;
  }

  sendPending() {
    const request = this.pending;
    this.pending = null;
    if (request === null) return;
    const id = this.nextId++;
    const timer = this.setTimer(() => this.overrun(id), this.overrunMs);
    this.inFlight = { id, timer, request };
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
    this.noteCost(this.inFlight.request, msg);
    this.inFlight = null;
    this.onAnswer(msg);
    this.sendPending();
  }

  overrun(id) {
    if (!this.inFlight || this.inFlight.id !== id) return;
    this.inFlight = null;
    // Not cheap: its next edits stay in the worker, where they can be stopped.
    this.costs = [Infinity, Infinity];
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
