import { monotonicMs } from "../shared/monotonic-ms.js";
import type { AuditAttestation } from "./audit-attestation.js";

/** Writes attestations for the sessions given (the store: flush, sign, commit, deliver). */
export type AttestationRun = (sessions: readonly string[]) => Promise<AuditAttestation[]>;

/**
 * Decides when a store signs: never per event. Sessions whose chain or transcript moved are
 * remembered (a Set insert per written event, nothing more); an attestation is written at the end
 * of a batch (`soon`: in the commit after it, or on the next turn of the event loop; no sooner
 * than `minGapMs` after the last one), at the latest `intervalMs` after the first unsigned
 * write during a long batch,
 * on `now()` and when the store closes. A failed attestation keeps its sessions for the next
 * try and is remembered until `takeError` hands it to the next write, which then fails: the
 * trail is never silently left unsigned.
 *
 * @example
 * ```ts
 * declare const store: { signNow: import("./attestation-scheduler.js").AttestationRun }; // signs these sessions now
 * const scheduler = new AttestationScheduler((sessions) => store.signNow(sessions));
 * scheduler.note("ses_1");
 * scheduler.soon();
 * ```
 */
export class AttestationScheduler {
  private dirty = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private immediate = false;
  private batchEnded = false;
  private gapTimer: NodeJS.Timeout | undefined;
  private settleTimer: NodeJS.Timeout | undefined;
  /** When the last attestation was written (monotonicMs()). */
  private lastAt = Number.NEGATIVE_INFINITY;
  private running: Promise<AuditAttestation[]> | undefined;
  private error: unknown;

  constructor(
    private readonly run: AttestationRun,
    private readonly intervalMs = 2000,
    /**
     * The least time between two attestations of a store: a batch that ends sooner after the last
     * one is signed with the next, at the latest this much later. A real model takes longer
     * than this per turn, so every batch gets its own attestation; a loop that spins through
     * batches (a scripted model) is not charged a signature per batch.
     */
    private readonly minGapMs = 200,
  ) {}

  private gapLeft(): number {
    return this.lastAt + this.minGapMs - monotonicMs();
  }

  /** A write moved this session's chain or transcript. */
  note(sessionId: string): void {
    this.dirty.add(sessionId);
    if (this.timer === undefined) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.now().catch(() => undefined);
      }, this.intervalMs);
      // A pending attestation must not keep a process alive; close() writes the last one.
      this.timer.unref();
    }
  }

  /**
   * A batch ended: sign after the next commit (which carries the batch's last items), or once
   * the event loop turns, whichever comes first.
   */
  soon(): void {
    if (this.dirty.size === 0) return;
    this.batchEnded = true;
    const left = this.gapLeft();
    if (left > 0) {
      if (this.gapTimer === undefined) {
        this.gapTimer = setTimeout(() => {
          this.gapTimer = undefined;
          if (this.batchEnded) this.now().catch(() => undefined);
        }, left);
        this.gapTimer.unref();
      }
      return;
    }
    if (this.immediate) return;
    this.immediate = true;
    setImmediate(() => {
      this.immediate = false;
      this.now().catch(() => undefined);
    });
  }

  /**
   * What was written is committed (a dispatch ended): sign it within `minGapMs`, unless a batch
   * end signs it first. A caller that never ends batches (the gateway, hooks, the approvals API)
   * is then signed at this cadence, not only every `intervalMs`.
   */
  settled(): void {
    if (this.dirty.size === 0 || this.settleTimer !== undefined) return;
    this.settleTimer = setTimeout(() => {
      this.settleTimer = undefined;
      this.now().catch(() => undefined);
    }, this.minGapMs);
    this.settleTimer.unref();
  }

  /** The sessions to sign in this commit, when a batch ended before it; else undefined. */
  due(): string[] | undefined {
    return this.batchEnded && this.dirty.size > 0 && !this.running && this.gapLeft() <= 0
      ? [...this.dirty].sort()
      : undefined;
  }

  /** These sessions were signed in a commit (`due`): they are clean again. */
  signed(sessions: readonly string[]): void {
    for (const sessionId of sessions) this.dirty.delete(sessionId);
    this.batchEnded = false;
    this.lastAt = monotonicMs();
    if (this.dirty.size === 0 && this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
  }

  /** Remember a failure (a delivery after a commit): the next write reports it. */
  failed(error: unknown): void {
    this.error = error;
  }

  /** A commit succeeded: if a batch ended before it, its attestation is due now. */
  committed(): void {
    if (!this.batchEnded || this.gapLeft() > 0) return;
    this.batchEnded = false;
    this.now().catch(() => undefined);
  }

  /** Sign every noted session now (after an attestation in flight); resolves with what was written. */
  async now(): Promise<AuditAttestation[]> {
    while (this.running) await this.running.catch(() => undefined);
    if (this.dirty.size === 0) return [];
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    const sessions = [...this.dirty].sort();
    this.dirty = new Set();
    this.batchEnded = false;
    this.lastAt = monotonicMs();
    const running = this.run(sessions);
    this.running = running;
    try {
      const written = await running;
      this.error = undefined;
      return written;
    } catch (error) {
      for (const sessionId of sessions) this.dirty.add(sessionId);
      this.error = error;
      throw error;
    } finally {
      this.running = undefined;
    }
  }

  /** The last attestation failure, once: the next write reports it. */
  takeError(): unknown {
    const error = this.error;
    this.error = undefined;
    return error;
  }

  /** Stop the timer (the store is closing). */
  stop(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    if (this.gapTimer !== undefined) clearTimeout(this.gapTimer);
    if (this.settleTimer !== undefined) clearTimeout(this.settleTimer);
    this.timer = undefined;
    this.gapTimer = undefined;
    this.settleTimer = undefined;
  }
}
