import type { Logger } from '../logger.ts';
import type { CollectorLeader, CollectorLease } from '../store/types.ts';

interface CollectorElectionOptions {
  lease: CollectorLease;
  /** This instance's name in the lease, the logs and `/v1/health`. */
  instance: string;
  /** How long a claim lasts without renewal. */
  ttlMs: number;
  /** Pause between two claims (default a third of `ttlMs`, so two may fail before the lease runs out). */
  renewMs?: number;
  logger: Logger;
  /**
   * Runs the collector as the leader of `term` until `signal` aborts, then stops it; resolves once
   * it stopped. Rejecting means it could not start: the lease is given up, and this instance makes
   * no claim for `ttlMs`, so that another tries first; alone, it tries again after that.
   */
  lead(term: number, signal: AbortSignal): Promise<void>;
}

interface Leading {
  term: number;
  controller: AbortController;
  done: Promise<void>;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Elects one collector among the instances sharing a store: every instance claims the lease each
 * `renewMs`; the one holding it runs the collector (`lead`), the others stand by and take over
 * once it runs out, within `ttlMs + renewMs` of the leader's last renewal.
 *
 * A leader that cannot renew steps down when its lease may have run out (`ttlMs` after it sent
 * the last claim that succeeded), even while a claim still hangs: by then a standby may lead. Its writes are fenced by term in the
 * store anyway, so a leader too slow to notice (paused, cut off) cannot commit after its successor.
 */
export class CollectorElection {
  readonly #lease: CollectorLease;
  readonly #instance: string;
  readonly #ttlMs: number;
  readonly #renewMs: number;
  readonly #logger: Logger;
  readonly #lead: (term: number, signal: AbortSignal) => Promise<void>;
  #leading: Leading | null = null;
  /** Steps down when the lease may have run out: `ttlMs` after the last renewal that succeeded was sent. */
  #deadlineTimer: NodeJS.Timeout | null = null;
  /** The leader last logged (`instance/term`), so a standby logs each change of leader once. */
  #leaderLogged = '';
  #claimFailureLogged = false;
  /**
   * Until when this instance makes no claim after its collector failed to start. Without it, an
   * instance whose claims come just before a standby's each round takes the lease back every
   * round, and the standby, claiming while the release is on its way, never leads.
   */
  #standAsideUntilMs = 0;
  #timer: NodeJS.Timeout | null = null;
  #stopped = false;

  constructor(options: CollectorElectionOptions) {
    this.#lease = options.lease;
    this.#instance = options.instance;
    this.#ttlMs = options.ttlMs;
    this.#renewMs = options.renewMs ?? Math.floor(options.ttlMs / 3);
    this.#logger = options.logger.child({ component: 'election', instance: options.instance });
    this.#lead = options.lead;
  }

  /** True while this instance holds the lease and runs the collector. */
  get leading(): boolean {
    return this.#leading !== null;
  }

  /** Claims once (a free lease is taken at once), then keeps claiming every `renewMs`. */
  async start(): Promise<void> {
    await this.#claimAndReschedule();
  }

  /**
   * Stops claiming, stops the collector if this instance leads, and gives the lease up at once.
   * A claim still in flight is not waited for (a cut-off store holds it until the query timeout):
   * if it comes back holding the lease, it hands it back.
   */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer !== null) clearTimeout(this.#timer);
    const leading = this.#leading;
    if (leading === null) return;
    await this.#stepDown('this instance is stopping');
    try {
      await this.#lease.release(this.#instance, leading.term);
      this.#logger.info(
        { term: leading.term },
        'collector lease released: a standby takes over at its next claim',
      );
    } catch (error) {
      this.#logger.warn(
        { term: leading.term, reason: messageOf(error) },
        'collector lease not released; a standby takes over once it runs out',
      );
    }
  }

  #claimAndReschedule(): Promise<void> {
    return this.#claim().finally(() => {
      if (this.#stopped) return;
      // Not unref'd: a standby collector has nothing else keeping its process alive.
      this.#timer = setTimeout(() => void this.#claimAndReschedule(), this.#renewMs);
    });
  }

  async #claim(): Promise<void> {
    const sentMs = Date.now();
    if (this.#leading === null && sentMs < this.#standAsideUntilMs) return;
    let claim: { held: boolean; leader: CollectorLeader };
    try {
      claim = await this.#lease.claim(this.#instance, this.#leading?.term ?? null, this.#ttlMs);
    } catch (error) {
      if (!this.#claimFailureLogged) {
        this.#claimFailureLogged = true;
        this.#logger.warn(
          { reason: messageOf(error) },
          'collector lease: cannot reach the store to claim it',
        );
      }
      return;
    }
    if (this.#claimFailureLogged) {
      this.#claimFailureLogged = false;
      this.#logger.info('collector lease: the store answers again');
    }
    const { held, leader } = claim;
    if (held) {
      // Taken or renewed while stopping: handed back at once rather than left to run out.
      if (this.#stopped && this.#leading === null) {
        await this.#lease.release(this.#instance, leader.term).catch(() => {});
        return;
      }
      if (this.#leading?.term === leader.term) {
        this.#armDeadline(sentMs);
        return;
      }
      if (this.#leading !== null)
        await this.#stepDown(`its lease lapsed and was claimed again as term ${leader.term}`);
      this.#startLeading(leader.term);
      this.#armDeadline(sentMs);
      return;
    }
    if (this.#leading !== null)
      await this.#stepDown(`instance ${leader.instance} leads now (term ${leader.term})`);
    const seen = `${leader.instance}/${leader.term}`;
    if (seen !== this.#leaderLogged) {
      this.#leaderLogged = seen;
      this.#logger.info(
        { leader: leader.instance, term: leader.term, since: leader.since },
        `collector lease: instance ${leader.instance} leads; this instance stands by`,
      );
    }
  }

  #startLeading(term: number): void {
    this.#leaderLogged = `${this.#instance}/${term}`;
    this.#logger.info({ leader: this.#instance, term }, 'collector lease: this instance leads the collector');
    const controller = new AbortController();
    const leading: Leading = { term, controller, done: Promise.resolve() };
    leading.done = this.#lead(term, controller.signal).catch(async (error: unknown) => {
      if (this.#leading !== leading) {
        // It stepped down while starting: the lease is no longer its to give up.
        this.#logger.error({ err: error, term }, 'collector failed to start');
        return;
      }
      this.#logger.error(
        { err: error, term, standAsideMs: this.#ttlMs },
        'collector failed to start; giving the lease up and standing aside for one lease term',
      );
      this.#leading = null;
      this.#standAsideUntilMs = Date.now() + this.#ttlMs;
      if (this.#deadlineTimer !== null) clearTimeout(this.#deadlineTimer);
      await this.#lease.release(this.#instance, term).catch(() => {});
    });
    this.#leading = leading;
  }

  /**
   * A timer, not a check after a failed claim: a claim cut off without a reset hangs until the
   * query timeout, and by then a standby may have led for a while.
   */
  #armDeadline(sentMs: number): void {
    if (this.#deadlineTimer !== null) clearTimeout(this.#deadlineTimer);
    this.#deadlineTimer = setTimeout(
      () => void this.#stepDown('no renewal of its lease succeeded in time; it may have run out'),
      Math.max(0, sentMs + this.#ttlMs - Date.now()),
    );
  }

  async #stepDown(reason: string): Promise<void> {
    const leading = this.#leading;
    if (leading === null) return;
    this.#leading = null;
    if (this.#deadlineTimer !== null) clearTimeout(this.#deadlineTimer);
    this.#deadlineTimer = null;
    this.#logger.warn(
      { term: leading.term, reason },
      'collector lease: this instance stops leading the collector',
    );
    leading.controller.abort();
    await leading.done;
  }
}
