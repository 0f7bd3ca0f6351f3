// A handle on one table: its lobby steps, a Watch that resumes from its cursor, the seat's labelled
// choices and view kept from the stream, and Act retried under one action id.
import { Code, ConnectError } from "@connectrpc/connect";
import { anyIs, anyPack, anyUnpack, type Any } from "@bufbuild/protobuf/wkt";
import { create, type DescMessage, type MessageShape } from "@bufbuild/protobuf";
import type { ActResponse, GetViewResponse, Table, WatchResponse } from "./gen/cardroom/gateway/v1/gateway_pb.js";
import type { BotLevel } from "./gen/cardroom/game/v1/game_pb.js";
import { TableCreatedSchema, TableFinishedSchema, type Event, type TableFinished } from "./gen/cardroom/events/v1/events_pb.js";
import { Pauses, sleep } from "./retry.js";
import type { CardroomClient } from "./client.js";

/**
 * Choices are the seat's legal actions at a table version, each with its label in words
 * (labels[i] names actions[i], all different): what a client shows a person, or a bot picks from.
 */
export interface Choices {
  version: bigint;
  actions: Any[];
  labels: string[];
}

/** What one message of the Watch stream (or a view fetched after it) brought. */
export interface Update {
  /** New events, in sequence order, each delivered once. */
  events: Event[];
  /** Set when the stream brought the seat's choices (none in it: the seat may no longer act). */
  choices?: Choices;
  /** The TableFinished event's payload, with the last update. */
  finished?: TableFinished;
  /** Marks the first update of a stream opened again after a drop. */
  resumed?: boolean;
  /** With WatchOptions.view: the view fetched after the events (an update of its own, with no events). */
  view?: GetViewResponse;
}

export interface WatchOptions {
  /** Stops the watch: the iteration ends (no error). */
  signal?: AbortSignal;
  /** Ask the stream for the seat's choices (default true; a spectator gets none anyway). */
  includeLegalActions?: boolean;
  /** One stream message per table change (default true); false: one per event and one per list. */
  batch?: boolean;
  /**
   * Keep the view current: fetch it (GetView) when the stream opens and after the events of each
   * burst (those of one network read), one call at a time, events that come meanwhile folded into
   * the next call. Each view comes as an update of its own.
   */
  view?: boolean;
  /** Told when a stream opened (again) brings its first message. */
  onConnect?: (resumed: boolean) => void;
  /** Told of each drop before the stream is opened again: the error, and whether the stream just ended. */
  onDrop?: (err: ConnectError, ended: boolean) => void;
  /** Told when a GetView of `view` failed (the next events try again). */
  onViewError?: (err: unknown) => void;
}

export interface ActOptions {
  /** Refuse the action (ABORTED, STALE_VERSION: isStale) unless the table is at this version. */
  expectedVersion?: bigint;
  /** The action id (default: a new one). An id names one action at the table: never reuse it for another. */
  actionId?: string;
  /** Ask for the seat's choices after the move in the answer. */
  includeLegalActions?: boolean;
  signal?: AbortSignal;
}

/** The codes that a Watch opened again would get again. */
function permanent(c: Code): boolean {
  return [Code.InvalidArgument, Code.NotFound, Code.PermissionDenied, Code.FailedPrecondition, Code.Unimplemented, Code.OutOfRange, Code.AlreadyExists].includes(c);
}

// Queue is the watch's output: what the stream and the view fetches push, read in order.
class Queue<T> {
  private items: T[] = [];
  private wake: (() => void) | null = null;
  private err: unknown = null;
  private closed = false;
  push(x: T) {
    this.items.push(x);
    this.wake?.();
  }
  close(err?: unknown) {
    this.closed = true;
    this.err = err ?? null;
    this.wake?.();
  }
  async *drain(): AsyncGenerator<T> {
    for (;;) {
      while (this.items.length) yield this.items.shift()!;
      if (this.closed) {
        if (this.err) throw this.err;
        return;
      }
      await new Promise<void>((r) => (this.wake = r));
      this.wake = null;
    }
  }
}

/**
 * TableHandle is a handle on one table: its lobby steps, its Watch stream, the seat's choices and
 * view, and Act. What it knows (the cursor, the version, the choices, the view) comes from its
 * Watch and its own calls.
 */
export class TableHandle {
  /** The table's game, once known (from the lobby, a view or the stream). */
  game = "";
  /** The caller's seat, once known; undefined while unknown or for a spectator. */
  seat: number | undefined;
  /** The private table's code, when the lobby gave it. */
  inviteCode = "";
  /** The sequence of the last event delivered: a Watch resumes after it. */
  cursor = 0n;
  /** The newest table version seen (events, choices, the caller's own moves). */
  version = 0n;
  /** The seat's current choices (null when it may not act, or the table moved past the last list). */
  choices: Choices | null = null;
  /** The latest view fetched (GetView). */
  view: GetViewResponse | null = null;
  /** The outcome, once the stream delivered TableFinished. */
  finished: TableFinished | null = null;
  private watching = false;
  private viewing: Promise<GetViewResponse> | null = null;
  private viewAgain = false;

  constructor(
    readonly client: CardroomClient,
    readonly id: string,
  ) {}

  /** noteTable keeps what a lobby answer says of the table (game, code, seat). */
  noteTable(t: Table | undefined): void {
    if (!t) return;
    if (t.game) this.game = t.game;
    if (t.inviteCode) this.inviteCode = t.inviteCode;
    if (t.yourSeat !== undefined) this.seat = t.yourSeat;
  }

  private async lobby(f: (o: { signal?: AbortSignal; timeoutMs?: number }) => Promise<{ table?: Table }>, signal?: AbortSignal): Promise<Table> {
    const r = await this.client.call(f, { retry: true, signal });
    this.noteTable(r.table);
    return r.table!;
  }

  /** info describes the table as the lobby has it (GetTable). */
  info(signal?: AbortSignal): Promise<Table> {
    return this.lobby((o) => this.client.api.getTable({ tableId: this.id }, o), signal);
  }

  /** addBots gives n free places to bots of level (the owner only): applied once however often it is retried (a request id). */
  addBots(count: number, level?: BotLevel, signal?: AbortSignal): Promise<Table> {
    const requestId = this.client.newId();
    return this.lobby((o) => this.client.api.addBots({ tableId: this.id, count, level, requestId }, o), signal);
  }

  /** start deals the table (the owner only); a retry of a start that was applied answers the table. */
  start(signal?: AbortSignal): Promise<Table> {
    return this.lobby((o) => this.client.api.startTable({ tableId: this.id }, o), signal);
  }

  /** leave gives up the caller's place before the start (the owner leaving closes the table); not retried. */
  async leave(signal?: AbortSignal): Promise<Table | undefined> {
    const r = await this.client.call((o) => this.client.api.leaveTable({ tableId: this.id }, o), { signal });
    return r.table;
  }

  // saw notes that the table reached version v: choices of an older version are past.
  private saw(v: bigint) {
    if (v > this.version) this.version = v;
    if (this.choices && this.choices.version < this.version) this.choices = null;
  }

  /**
   * fetchView gets the caller's view (GetView: the seat's, or a spectator's) and keeps it. Calls
   * made while one is under way share the next one.
   */
  fetchView(signal?: AbortSignal): Promise<GetViewResponse> {
    if (this.viewing) {
      this.viewAgain = true;
      return this.viewing;
    }
    const run = async (): Promise<GetViewResponse> => {
      let v: GetViewResponse;
      try {
        do {
          this.viewAgain = false;
          v = await this.client.call((o) => this.client.api.getView({ tableId: this.id }, o), { retry: true, signal });
          if (v.seat !== undefined) this.seat = v.seat;
          if (v.table?.config?.game) this.game = v.table.config.game;
          this.saw(v.version);
          this.view = v;
        } while (this.viewAgain && !signal?.aborted);
      } finally {
        this.viewing = null;
      }
      return v;
    };
    return (this.viewing = run());
  }

  /**
   * act plays action (an Any of the game's action message) for the caller's seat under one action
   * id. A try whose answer was lost (UNAVAILABLE, no answer in time) is sent again with the same id,
   * and the gateway applies it once (the answer to a retry of an applied action says `replayed`).
   * Refusals are ConnectErrors with a RuleViolation (violationCode); a stale one (isStale) changed
   * nothing.
   */
  async act(action: Any, o: ActOptions = {}): Promise<ActResponse> {
    const actionId = o.actionId ?? this.client.newId();
    const r = await this.client.call(
      (c) => this.client.api.act({ tableId: this.id, action, actionId, expectedVersion: o.expectedVersion, includeLegalActions: !!o.includeLegalActions }, c),
      { retry: true, signal: o.signal },
    );
    this.saw(r.version);
    return r;
  }

  /** actMessage packs a message of the game's action type and plays it (act). */
  actMessage<D extends DescMessage>(schema: D, action: MessageShape<D>, o: ActOptions = {}): Promise<ActResponse> {
    return this.act(anyPack(schema, action), o);
  }

  /**
   * choose plays choice i (an index, or a label) of choices (default: the current ones) at their
   * version: if another move came first it is refused as stale (isStale) and the stream brings the
   * new choices.
   */
  choose(which: number | string, choices: Choices | null = this.choices, o: Omit<ActOptions, "expectedVersion"> = {}): Promise<ActResponse> {
    const i = typeof which === "number" ? which : (choices?.labels.indexOf(which) ?? -1);
    if (!choices || i < 0 || i >= choices.actions.length) return Promise.reject(new Error(`no choice ${which} of ${choices?.actions.length ?? 0}`));
    return this.act(choices.actions[i], { ...o, expectedVersion: choices.version });
  }

  /**
   * watch follows the table from after its cursor (its first event for a new handle) to its end,
   * yielding each update once and in order. When the stream drops (an error, or its end before
   * TableFinished) it is opened again after the last sequence delivered, after a pause that grows
   * exponentially while tries fail: nothing is missed and nothing repeated. The iteration ends after
   * the TableFinished update or when the signal is aborted, and throws the gateway's refusal
   * (NOT_FOUND, PERMISSION_DENIED, …; UNAUTHENTICATED when the session cannot be renewed).
   */
  async *watch(o: WatchOptions = {}): AsyncGenerator<Update> {
    if (this.watching) throw new Error(`table ${this.id} is watched already`);
    this.watching = true;
    const ac = new AbortController();
    const stop = () => ac.abort(o.signal?.reason);
    o.signal?.addEventListener("abort", stop, { once: true });
    if (o.signal?.aborted) ac.abort();
    const q = new Queue<Update>();
    // Each view fetched once: calls that shared a GetView get the same answer.
    let lastView: GetViewResponse | null = null;
    const pushView = (view: GetViewResponse) => {
      if (ac.signal.aborted || view === lastView) return;
      lastView = view;
      q.push({ events: [], view });
    };
    const viewFailed = (e: unknown) => !ac.signal.aborted && o.onViewError?.(e);
    // The view after the events of one burst: gathered by a zero-delay timer, one GetView at a time.
    let viewSoon = false;
    const viewAfter = () => {
      if (!o.view || viewSoon) return;
      viewSoon = true;
      setTimeout(() => {
        viewSoon = false;
        if (ac.signal.aborted) return;
        this.fetchView(ac.signal).then(pushView, viewFailed);
      }, 0);
    };
    const run = async () => {
      const p = new Pauses(this.client.backoff);
      let resumed = false;
      let renewed = false; // signed in again since the last message
      while (!ac.signal.aborted && !this.finished) {
        let err: ConnectError;
        let ended = false;
        try {
          const stream = this.client.api.watch(
            { tableId: this.id, afterSequence: this.cursor, includeLegalActions: o.includeLegalActions ?? true, batch: o.batch ?? true },
            { signal: ac.signal },
          );
          if (o.view) this.fetchView(ac.signal).then(pushView, viewFailed);
          let first = true;
          for await (const r of stream) {
            p.reset();
            renewed = false;
            const u = this.take(r);
            if (first) {
              first = false;
              o.onConnect?.(resumed);
              if (resumed) u.resumed = true;
            }
            if (u.events.length) viewAfter();
            if (u.events.length || u.choices || u.resumed) q.push(u);
            if (u.finished) return;
          }
          if (this.finished || ac.signal.aborted) return;
          err = new ConnectError("the stream ended before the table finished", Code.Unavailable);
          ended = true;
        } catch (e) {
          if (ac.signal.aborted) return;
          err = ConnectError.from(e);
          if (err.code === Code.Unauthenticated && !renewed) {
            await this.client.renew(err); // throws when the client cannot sign in again
            renewed = true;
          } else if (err.code === Code.Unauthenticated || permanent(err.code)) throw err;
        }
        o.onDrop?.(err, ended);
        resumed = true;
        await p.wait(ac.signal);
      }
    };
    run().then(
      () => q.close(),
      (e) => q.close(ac.signal.aborted ? undefined : e),
    );
    try {
      yield* q.drain();
    } finally {
      ac.abort();
      o.signal?.removeEventListener("abort", stop);
      this.watching = false;
    }
  }

  // take keeps what a stream message brought and returns it as an update: events after the cursor
  // (any at or before it are dropped), then the choices.
  private take(r: WatchResponse): Update {
    const u: Update = { events: [] };
    const evs = r.event ? [...r.events, r.event] : r.events;
    for (const e of evs) {
      if (e.sequence <= this.cursor) continue;
      this.cursor = e.sequence;
      this.saw(e.version);
      if (!this.game) this.game = e.game;
      if (e.payload && anyIs(e.payload, TableCreatedSchema) && this.seat === undefined) {
        const c = anyUnpack(e.payload, TableCreatedSchema);
        const me = this.client.playerId;
        const s = c?.config?.seats.find((s) => me && s.player?.playerId === me);
        if (s) this.seat = s.index;
      } else if (e.payload && anyIs(e.payload, TableFinishedSchema)) {
        this.finished = anyUnpack(e.payload, TableFinishedSchema) ?? create(TableFinishedSchema);
        u.finished = this.finished;
        this.choices = null;
      }
      u.events.push(e);
    }
    const l = r.legalActions;
    if (l && !this.finished && l.version >= this.version) {
      this.version = l.version;
      this.choices = l.actions.length ? { version: l.version, actions: l.actions, labels: l.labels } : null;
      u.choices = { version: l.version, actions: l.actions, labels: l.labels };
    }
    return u;
  }
}

export { sleep };
