import { isThenable } from "../shared/is-thenable.js";
import type { RowAttestation, SignOptions, UnsignedTail } from "./attestation-plan.js";
import { AttestationScheduler } from "./attestation-scheduler.js";
import type { AttestationSigner, AuditAttestation } from "./audit-attestation.js";
import { isOwnerGone } from "./call-owner.js";
import { type BatchAttestation, patchedSessions } from "./patched-sessions.js";
import type { PendingWrite, SessionUpdate } from "./pending-write.js";
import type { Awaitable, StoreEngine } from "./store-engine.js";

type Write = (items: readonly PendingWrite[], key: number) => void | Promise<void>;

/**
 * A store's signing: which sessions moved, when they are signed (`AttestationScheduler`), the
 * copy of every attestation to the digest log, and recovery's signing of what a dead process
 * left unsigned. A failure of any of it fails the next write: the trail is never silently left
 * unsigned.
 *
 * @example
 * ```ts
 * import { EventQueue } from "./event-queue.js";
 * declare const engine: import("./store-engine.js").StoreEngine;
 * declare const signer: import("./audit-attestation.js").AttestationSigner;
 * let queue: EventQueue | undefined; // the store's, made once the signing is
 * const context = { flush: async () => queue?.flush(), now: Date.now, intervalMs: 2000, owner: "host/1/uuid" };
 * const signing = new StoreSigning(engine, signer, context);
 * queue = new EventQueue(signing.write(), { buffer: true });
 * ```
 */
export class StoreSigning {
  private readonly scheduler: AttestationScheduler;
  /** Attestations committed whose copy to the digest log failed: sent with the next ones. */
  private undelivered: AuditAttestation[] = [];
  /** A signing write failed: it may have committed attestations nobody has copied yet. */
  private inDoubt = false;
  private delivering: Promise<void> = Promise.resolve();
  /** Copies to the digest log under way (the queue's and direct ones), with what each holds. */
  private readonly copying = new Set<Copy>();
  /** This process signed an attestation: its owed-deliveries row exists until a clean close. */
  private signedAny = false;

  constructor(
    private readonly db: StoreEngine,
    private readonly signer: AttestationSigner,
    private readonly context: {
      readonly flush: () => Promise<void>;
      readonly now: () => number;
      readonly intervalMs: number;
      /** The store's owner: the one its attestations record (ADR 0049). */
      readonly owner: string;
    },
  ) {
    this.scheduler = new AttestationScheduler(
      (sessions) => this.sign(sessions),
      context.intervalMs,
    );
  }

  /** The event queue's write: appends, and signs in the same commit when a batch ended. */
  write(): Write {
    const { db, scheduler, signer } = this;
    return (items, key) => {
      this.throwFailure();
      this.noteItems(items);
      const due = db.appendAndSign ? scheduler.due() : undefined;
      // A queued batch that patches its session's row is signed in the commit that writes it,
      // due or not (ADR 0067): no crash leaves the row changed and unsigned.
      const patched = db.appendAndSign ? patchedSessions(items) : [];
      if ((due || patched.length > 0) && db.appendAndSign) {
        const sessions = [...new Set([...(due ?? []), ...patched])].sort();
        // The batch's attestation rides in its own commit: no transaction of its own.
        const signed = db.appendAndSign(items, sessions, signer, this.context.now());
        if (signed.length > 0) this.signedAny = true;
        if (due) scheduler.signed(sessions);
        else scheduler.committed();
        this.deliver(signed);
        return;
      }
      const written = db.appendEvents(items, key);
      if (isThenable(written)) return written.then(() => scheduler.committed());
      scheduler.committed();
      return written;
    };
  }

  /** Before a transcript write of `sessionId` with the queued items: fail on a past failure. */
  beforeMessages(items: readonly PendingWrite[], sessionId: string): void {
    this.throwFailure();
    this.noteItems(items);
    this.scheduler.note(sessionId);
  }

  /** This session moved outside the queue (created, its row updated). */
  note(sessionId: string): void {
    this.scheduler.note(sessionId);
  }

  /** A batch or a dispatch ended: sign what it wrote soon (at most `minGapMs` later). */
  batchEnded(): void {
    this.scheduler.soon();
  }

  /** What was written is committed (a dispatch ended): signed within the least gap. */
  settled(): void {
    this.scheduler.settled();
  }

  /**
   * Write a session's row (created or updated) signed in the same commit (`write` does both),
   * outside the cadence (it does not delay the next batch's attestation): the row is known to
   * this key from the commit that changed it, and no crash can leave it changed and unsigned.
   */
  async inCommit<T extends { readonly attestations: readonly AuditAttestation[] }>(
    write: (sign: RowAttestation) => Awaitable<T | undefined>,
  ): Promise<T | undefined> {
    this.throwFailure();
    const written = await this.inDoubtOnFailure(() =>
      write({ signer: this.signer, at: this.context.now() }),
    );
    await this.delivered(written?.attestations ?? []);
    return written;
  }

  /**
   * A transcript write, or a write's claim, signed in its commit when it patches a session's row
   * (its own batch, or a queued one it commits first): `write` gets the sessions to sign, or none.
   */
  async inTranscriptCommit<T extends { readonly attestations: readonly AuditAttestation[] }>(
    items: readonly PendingWrite[],
    sessionId: string | undefined,
    update: SessionUpdate | undefined,
    write: (sign: BatchAttestation | undefined) => Awaitable<T>,
  ): Promise<T> {
    const sessions = patchedSessions(items, sessionId, update);
    if (sessions.length === 0) return write(undefined);
    this.throwFailure();
    const saved = await this.inDoubtOnFailure(() =>
      write({ signer: this.signer, at: this.context.now(), sessions }),
    );
    // Committed, with the items queued before it: a failed copy must not read as a failed commit
    // (the queue would append those items a second time). It is kept for the next delivery and
    // fails the next write, as a queued batch's copy does.
    try {
      await this.delivered(saved.attestations);
    } catch (error) {
      this.scheduler.failed(error);
    }
    return saved;
  }

  /**
   * Before what must not start on a signature the digest log does not hold (a write's handler,
   * once its batch's pending record is signed): wait for every copy under way that holds one of
   * `sessionId`'s attestations, queued or direct, and when one is still not in the log (whoever
   * was told of the failure), copy it now, as `inCommit` does for its own update. A copy that
   * fails again is thrown here; the failure stays for the next write to report as well.
   */
  async copied(sessionId: string): Promise<void> {
    const holds = (attestations: readonly AuditAttestation[]) =>
      attestations.some((attestation) => attestation.sessionId === sessionId);
    for (;;) {
      const under = [...this.copying].filter((copy) => holds(copy.attestations));
      if (under.length === 0) break;
      await Promise.all(under.map((copy) => copy.settled));
    }
    if (holds(this.undelivered)) await this.delivered([]);
  }

  /** Sign every session that moved, now. */
  now(): Promise<AuditAttestation[]> {
    return this.scheduler.now();
  }

  /**
   * Recovery: first deliver the copies that processes of this host owed the digest log when
   * they died (a kill between an attestation's commit and its delivery), then sign the tails they
   * left unsigned (every owned call in the tail belongs to a process that is gone), marked
   * `recovered` so that verify says what they are. A live or unknown writer is left alone.
   */
  async recover(): Promise<AuditAttestation[]> {
    await this.redeliver();
    const tails = await this.db.unsignedTails();
    const abandoned = tails.filter(isAbandoned).map((tail) => tail.sessionId);
    if (abandoned.length === 0) return [];
    return this.sign(abandoned, { recovered: true });
  }

  /** The last attestation, then the copies still owed to the digest log (the store closes). */
  async close(): Promise<void> {
    try {
      await this.scheduler.now();
      await this.delivering;
      if (this.undelivered.length > 0) await this.signer.deliver(this.undelivered);
      this.undelivered = [];
      // A signing write that failed may still have committed (a PostgreSQL restart mid-commit):
      // its attestations are copied now, from what the store says this process signed.
      if (this.inDoubt) await this.deliverOwed([this.context.owner]);
      // Every copy is delivered: nothing is owed if this process is gone from now on.
      if (this.signedAny || this.inDoubt) await this.db.deliveries.settle(this.context.owner);
    } finally {
      this.scheduler.stop();
    }
  }

  /** Commit what is queued, sign the sessions given, copy the attestations to the digest log. */
  private async sign(
    sessions: readonly string[],
    options: SignOptions = {},
  ): Promise<AuditAttestation[]> {
    await this.context.flush();
    const written = await this.inDoubtOnFailure(() =>
      this.db.writeAttestations(sessions, this.signer, this.context.now(), options),
    );
    await this.delivered(written);
    return written;
  }

  /** Copy attestations just committed (and any left undelivered) to the digest log, now. */
  private delivered(written: readonly AuditAttestation[]): Promise<void> {
    if (written.length > 0) this.signedAny = true;
    return this.tracked(written, async (copy) => {
      await this.delivering;
      const undelivered = [...this.undelivered, ...written];
      copy.attestations = undelivered;
      this.undelivered = [];
      if (undelivered.length === 0) return;
      try {
        await this.signer.deliver(undelivered);
      } catch (error) {
        this.undelivered = undelivered;
        throw error;
      }
    });
  }

  /** Run a copy to the digest log, known to `copied` until it settles. */
  private tracked(
    attestations: readonly AuditAttestation[],
    run: (copy: Copy) => Promise<void>,
  ): Promise<void> {
    const copy: Copy = { attestations, settled: RESOLVED };
    this.copying.add(copy);
    const done = run(copy);
    copy.settled = done.then(
      () => {
        this.copying.delete(copy);
      },
      () => {
        this.copying.delete(copy);
      },
    );
    return done;
  }

  /**
   * Copy attestations signed in a commit to the digest log, in order; a failure keeps them for
   * the next delivery and fails the next write.
   */
  private deliver(attestations: readonly AuditAttestation[]): void {
    if (attestations.length === 0) return;
    const previous = this.delivering;
    this.delivering = this.tracked(attestations, async (copy) => {
      await previous;
      const batch = [...this.undelivered, ...attestations];
      copy.attestations = batch;
      this.undelivered = [];
      try {
        await this.signer.deliver(batch);
      } catch (error) {
        this.undelivered = batch;
        this.scheduler.failed(error);
      }
    });
  }

  /**
   * Deliver what dead signers owed: the attestations each signed that the digest log lacks, in
   * order; then their rows go. The whole log is read only here, and only when a row of a dead
   * process exists.
   */
  private async redeliver(): Promise<void> {
    const { deliveries } = this.db;
    const dead = (await deliveries.owners()).filter(
      (owner) => owner !== this.context.owner && isOwnerGone(owner),
    );
    if (dead.length === 0) return;
    await this.deliverOwed(dead);
    for (const owner of dead) await deliveries.settle(owner);
  }

  /** Copy to the digest log what these owners signed and it does not hold yet. */
  private async deliverOwed(owners: readonly string[]): Promise<void> {
    const storeId = await this.db.storeId();
    const have =
      storeId !== undefined && this.signer.delivered
        ? await this.signer.delivered(storeId)
        : new Set<string>();
    for (const owner of owners) {
      const owed = (await this.db.deliveries.signedBy(owner)).filter((c) => !have.has(c.hash));
      if (owed.length > 0) await this.signer.deliver(owed);
    }
  }

  /** Run a signing write; when it fails, its commit may still have happened (see `close`). */
  private async inDoubtOnFailure<T>(write: () => Awaitable<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      this.inDoubt = true;
      throw error;
    }
  }

  private throwFailure(): void {
    const error = this.scheduler.takeError();
    if (error !== undefined) throw error;
  }

  /** Remember which sessions a write moves: a Set insert per event, no signing here. */
  private noteItems(items: readonly PendingWrite[]): void {
    for (const item of items) {
      if (item.kind === "event" || item.kind === "messages") this.scheduler.note(item.sessionId);
    }
  }
}

/**
 * Every owned call of the tail belongs to a process known to be gone, and there is one. A tail
 * that names no owned call (a kill after its `requested` events were committed and before their
 * claims) is attributed to the signer of the session's last attestation: the process that was
 * writing it. A live or unknown owner either way leaves the tail to its writer.
 */
function isAbandoned(tail: UnsignedTail): boolean {
  const called = tail.owners.filter((owner): owner is string => owner !== null);
  const owners = called.length > 0 ? called : tail.signer === null ? [] : [tail.signer];
  return owners.length > 0 && owners.every((owner) => isOwnerGone(owner.split("#")[0]));
}

/** A copy to the digest log under way: the attestations it holds, and when it has settled. */
interface Copy {
  attestations: readonly AuditAttestation[];
  settled: Promise<void>;
}

const RESOLVED: Promise<void> = Promise.resolve();
