// The publisher: a bounded FIFO of events sent in order, batched, retried. One batch is in
// flight at a time; a transient failure resends the same events (the server treats repeats as
// duplicates); a permanent one drops the event the server named (or the whole batch) and keeps
// the error for `flush`/`close`.
import { create, toBinary } from "@bufbuild/protobuf";
import { BufferFull, ToolviewError, TRANSIENT, Undelivered } from "./errors.js";
import type { ToolEvent } from "./gen/toolview/v1/events_pb.js";
import { ToolEventSchema } from "./gen/toolview/v1/events_pb.js";
import type { PublishRequest, PublishResponse } from "./gen/toolview/v1/session_service_pb.js";
import { PublishRequestSchema } from "./gen/toolview/v1/session_service_pb.js";

/** How the publisher batches, buffers and retries. */
export interface PublishOptions {
  /** Ms the oldest buffered event waits for others to join its batch (5). */
  lingerMs?: number;
  /** Events per request at most (256). */
  maxBatchEvents?: number;
  /** Bytes per request at most (1 MiB, well under the server's 4 MiB message limit). */
  maxBatchBytes?: number;
  /** Events the buffer holds at most while the server is slow or away (10,000). */
  maxBufferedEvents?: number;
  /** Bytes the buffer holds at most (16 MiB). */
  maxBufferedBytes?: number;
  /** Ms `publish` waits for room before rejecting with `BufferFull` (30,000; `Infinity`
   * waits as long as it takes). Events are never dropped to make room. */
  blockTimeoutMs?: number;
  /** Ms one attempt may take before it is retried (10,000). */
  attemptTimeoutMs?: number;
  /** The first retry's pause (50 ms), doubling to `maxBackoffMs` (5,000), jittered. */
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  /** Receives each refused event; without it, refusals reject the next `flush`/`close`. */
  onError?: (failure: Failure) => void;
}

/** An event the server refused, and why. */
export interface Failure {
  event: ToolEvent;
  error: ToolviewError;
}

const DEFAULTS = {
  lingerMs: 5,
  maxBatchEvents: 256,
  maxBatchBytes: 1 << 20,
  maxBufferedEvents: 10_000,
  maxBufferedBytes: 16 << 20,
  blockTimeoutMs: 30_000,
  attemptTimeoutMs: 10_000,
  initialBackoffMs: 50,
  maxBackoffMs: 5_000,
};

/** Exponential pauses, each uniform in [d/2, d]. */
export class Backoff {
  private current: number;
  constructor(
    private readonly initial: number,
    private readonly maximum: number,
  ) {
    this.current = initial;
  }
  next(): number {
    const d = this.current;
    this.current = Math.min(this.current * 2, this.maximum);
    return d / 2 + Math.random() * (d / 2);
  }
  reset(): void {
    this.current = this.initial;
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

type Send = (request: PublishRequest, timeoutMs: number) => Promise<PublishResponse>;

export class Publisher {
  private readonly options: typeof DEFAULTS & Pick<PublishOptions, "onError">;
  private readonly queue: { event: ToolEvent; size: number }[] = [];
  private bytes = 0;
  private taken = 0;
  private settled = 0;
  private failures: Failure[] = [];
  private firstAt = 0;
  private flushing = 0;
  private closed = false;
  private abandoned = false;
  private running: Promise<void> | undefined;
  // Wakes whoever waits for a change: the sender loop, blocked publishers, flushes.
  private waiters: (() => void)[] = [];
  /** Attempts that failed transiently and were sent again. */
  retries = 0;
  /** Why the latest attempt failed, while attempts fail transiently (unset once one succeeds):
   * what `Undelivered` reports. */
  lastFailure: ToolviewError | undefined;
  /** Events the server acknowledged (appended, or held already). */
  acknowledged = 0;
  /** Acknowledgements that said the server already held the event. */
  duplicates = 0;

  constructor(
    private readonly send: Send,
    options: PublishOptions = {},
  ) {
    this.options = { ...DEFAULTS, ...options };
  }

  private notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  /** Resolves on the next change, or after `ms`. */
  private changed(ms = Infinity): Promise<void> {
    return new Promise((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      // The timer is cleared on a wake, so a long block timeout does not keep Node running.
      const wake = () => {
        if (timer !== undefined) clearTimeout(timer);
        resolve();
      };
      this.waiters.push(wake);
      if (Number.isFinite(ms)) timer = setTimeout(wake, Math.max(0, ms));
    });
  }

  private hasRoom(size: number): boolean {
    if (this.queue.length === 0) return true;
    return this.queue.length < this.options.maxBufferedEvents && this.bytes + size <= this.options.maxBufferedBytes;
  }

  async put(event: ToolEvent): Promise<void> {
    const size = toBinary(ToolEventSchema, event).length;
    const deadline = Date.now() + this.options.blockTimeoutMs;
    while (!this.closed && !this.hasRoom(size)) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) {
        throw new BufferFull(
          `${this.queue.length} events (${this.bytes} bytes) await the server; the buffer holds ` +
            `${this.options.maxBufferedEvents} events or ${this.options.maxBufferedBytes} bytes`,
        );
      }
      await this.changed(remaining);
    }
    if (this.closed) throw new ToolviewError("the client is closed", undefined);
    if (this.queue.length === 0) this.firstAt = Date.now();
    this.queue.push({ event, size });
    this.bytes += size;
    this.taken += 1;
    this.running ??= this.run();
    this.notify();
  }

  private batchReady(): boolean {
    return this.queue.length >= this.options.maxBatchEvents || this.bytes >= this.options.maxBatchBytes;
  }

  private batch(): ToolEvent[] {
    const out: ToolEvent[] = [];
    let size = 0;
    for (const { event, size: n } of this.queue) {
      if (out.length > 0 && (out.length >= this.options.maxBatchEvents || size + n > this.options.maxBatchBytes)) break;
      out.push(event);
      size += n;
    }
    return out;
  }

  private async nextBatch(): Promise<ToolEvent[] | undefined> {
    for (;;) {
      if (this.abandoned || (this.closed && this.queue.length === 0)) return undefined;
      if (this.queue.length === 0) {
        await this.changed();
        continue;
      }
      if (this.flushing > 0 || this.closed || this.batchReady()) return this.batch();
      const wait = this.firstAt + this.options.lingerMs - Date.now();
      if (wait <= 0) return this.batch();
      await this.changed(wait);
    }
  }

  private drop(count: number): void {
    for (const { size } of this.queue.splice(0, count)) this.bytes -= size;
    this.settled += count;
  }

  private refuse(batch: ToolEvent[], error: ToolviewError): void {
    const index = error.eventIndex;
    const refused: ToolEvent[] = [];
    if (index !== undefined && index < batch.length) {
      // The server validates a request whole before appending: the others go again.
      const [{ event, size }] = this.queue.splice(index, 1);
      this.bytes -= size;
      this.settled += 1;
      refused.push(event);
    } else {
      refused.push(...batch);
      this.drop(batch.length);
    }
    for (const event of refused) {
      const failure = { event, error };
      if (this.options.onError) this.options.onError(failure);
      else this.failures.push(failure);
    }
  }

  private async run(): Promise<void> {
    const backoff = new Backoff(this.options.initialBackoffMs, this.options.maxBackoffMs);
    for (;;) {
      const batch = await this.nextBatch();
      if (batch === undefined) return;
      let transient = false;
      try {
        const response = await this.send(
          create(PublishRequestSchema, { events: batch }),
          this.options.attemptTimeoutMs,
        );
        this.acknowledged += batch.length;
        this.duplicates += response.acks.filter((a) => a.duplicate).length;
        this.drop(batch.length);
        backoff.reset();
        this.lastFailure = undefined;
      } catch (e) {
        const error = ToolviewError.from(e);
        if (error.code !== undefined && TRANSIENT.has(error.code)) {
          transient = true;
          // Once per outage, not per retry: a harness should not wait for `close` to learn
          // that nothing is listening.
          if (this.lastFailure === undefined) {
            console.warn(`toolview: publishing failed, retrying until it succeeds: ${error.message}`);
          }
          this.lastFailure = error;
        } else this.refuse(batch, error);
      }
      // Events that arrived during the request waited already: send them at once.
      this.firstAt = 0;
      this.notify();
      if (transient) {
        this.retries += 1;
        await sleep(backoff.next());
      }
    }
  }

  /** Waits until every event taken so far is settled; rejects with the first refusal. */
  async flush(timeoutMs = Infinity, closing = false): Promise<void> {
    const target = this.taken;
    this.flushing += 1;
    if (closing) this.closed = true;
    this.notify();
    try {
      const deadline = Date.now() + timeoutMs;
      while (this.settled < target) {
        const remaining = deadline - Date.now();
        if (remaining <= 0) {
          const pending = target - this.settled;
          if (closing) {
            this.abandoned = true;
            this.notify();
          }
          const why = this.lastFailure ? `: the last attempt failed: ${this.lastFailure.message}` : "";
          throw new Undelivered(`${pending} events were not acknowledged within ${timeoutMs} ms${why}`, pending);
        }
        await this.changed(remaining);
      }
    } finally {
      this.flushing -= 1;
    }
    const failures = this.failures;
    this.failures = [];
    if (failures.length > 0) {
      failures[0].error.failures = failures;
      throw failures[0].error;
    }
  }
}
