// The client: sign-in with a kept device credential, a session refreshed before it expires, the
// lobby's calls made safe to retry, and handles on tables.
import { Code, ConnectError, createClient, type Client, type Transport } from "@connectrpc/connect";
import { timestampMs } from "@bufbuild/protobuf/wkt";
import type { MessageInitShape } from "@bufbuild/protobuf";
import {
  GatewayService,
  TicketState,
  type CreateTableRequestSchema,
  type EnqueueTicketRequestSchema,
  type GameInfo,
  type SignInResponse,
  type WatchTicketResponse,
} from "./gen/cardroom/gateway/v1/gateway_pb.js";
import { defaultBackoff, isRetryable, newId, Pauses, randomBase64url, type Backoff } from "./retry.js";
import { memoryStorage, type Storage } from "./storage.js";
import { TableHandle } from "./table.js";

/** A signed-in session, as the client keeps it. */
export interface Session {
  token: string;
  playerId: string;
  /** The name the session plays under. */
  name: string;
  /** When the token expires, in ms since the epoch. */
  expires: number;
  /** When the client received the token, in ms since the epoch (absent in sessions kept by older clients). */
  issued?: number;
  /** How the session was made: a device session is signed in again with the kept device when it runs out. */
  via?: "device" | "password" | "guest";
}

/** A device credential (SignIn's DeviceCredential): made once, kept, and the same player at every sign-in. */
export interface DeviceCredential {
  deviceId: string;
  secret: string;
}

export interface ClientOptions {
  /** How calls reach the gateway: connect-web's createConnectTransport or createGrpcWebTransport, connect-node's, or a test's. */
  transport: Transport;
  /** Where the device credential and the session are kept (default: memory, so a new player per client). */
  storage?: Storage;
  /** The storage keys (default "cardroom.session" and "cardroom.device"). */
  sessionKey?: string;
  deviceKey?: string;
  /** The prefix of the device ids this client makes (default "dev-"). */
  devicePrefix?: string;
  /** The prefix of the action and request ids this client makes (default "c-"). */
  idPrefix?: string;
  /** The pauses between tries (Act, the lobby's calls, a Watch opened again). */
  backoff?: Partial<Backoff>;
  /** Tries of a call whose answer was lost, the first included (default 5). */
  attempts?: number;
  /** The time one try of a retried call may take, ms (default 15 s): past it the try counts as lost. */
  callTimeoutMs?: number;
  /**
   * The session is refreshed (RefreshSession) by the first call made when less than this is left
   * of it, ms (default 5 minutes, or half the session's lifetime when that is shorter).
   */
  refreshMarginMs?: number;
  /** The clock (for tests). */
  now?: () => number;
}

/** A ticket: what EnqueueTicket asks for (its request id is the client's). */
export type Ticket = Omit<MessageInitShape<typeof EnqueueTicketRequestSchema>, "requestId" | "$typeName">;

/** A table to create: CreateTable's request (its request id is the client's). */
export type NewTable = Omit<MessageInitShape<typeof CreateTableRequestSchema>, "requestId" | "$typeName">;

/** The client's error when a ticket ends without a table. */
export class TicketCancelledError extends Error {
  constructor(readonly ticketId: string) {
    super(`ticket ${ticketId} was cancelled`);
    this.name = "TicketCancelledError";
  }
}

/**
 * CardroomClient is a player's connection to a cardroom gateway. Its calls carry the session's token
 * (refreshed before it expires; signed in again with the kept credential when the gateway no longer
 * takes it), and the calls that change something are made with an id that makes their retries safe.
 */
export class CardroomClient {
  /** The gateway's API, every call made with the session's token (refreshed first when due). */
  readonly api: Client<typeof GatewayService>;
  /** The API without the token: SignIn, RefreshSession (with its own header), ListGames. */
  readonly plain: Client<typeof GatewayService>;
  readonly storage: Storage;
  readonly backoff: Backoff;
  readonly attempts: number;
  readonly callTimeoutMs: number;
  readonly idPrefix: string;
  private readonly opts: ClientOptions;
  private readonly now: () => number;
  private current: Session | null;
  private refreshing: Promise<Session> | null = null;
  // How to sign in again when the gateway no longer takes the session (null: a guest, or signed out).
  private again: (() => Promise<Session>) | null = null;

  constructor(opts: ClientOptions) {
    this.opts = opts;
    this.storage = opts.storage ?? memoryStorage();
    this.backoff = { ...defaultBackoff, ...opts.backoff };
    this.attempts = opts.attempts ?? 5;
    this.callTimeoutMs = opts.callTimeoutMs ?? 15000;
    this.idPrefix = opts.idPrefix ?? "c-";
    this.now = opts.now ?? Date.now;
    this.plain = createClient(GatewayService, opts.transport);
    this.api = createClient(GatewayService, this.authed(opts.transport));
    this.current = this.loadSession();
    // A kept session of a device player signs in again with the device when it runs out.
    if (this.current?.via === "device" && this.loadDevice()) this.again = () => this.deviceSignIn(this.loadDevice()!, "");
  }

  private get sessionKey() {
    return this.opts.sessionKey ?? "cardroom.session";
  }
  private get deviceKey() {
    return this.opts.deviceKey ?? "cardroom.device";
  }

  /** The session, or null when signed out (or the kept one has expired). */
  get session(): Session | null {
    return this.current && this.current.expires > this.now() ? this.current : null;
  }

  /** The signed-in player's id ("" when signed out). */
  get playerId(): string {
    return this.current?.playerId ?? "";
  }

  private loadSession(): Session | null {
    try {
      const s = JSON.parse(this.storage.get(this.sessionKey) ?? "null") as Session | null;
      return s && s.token && s.expires > this.now() ? s : null;
    } catch {
      return null;
    }
  }

  /**
   * setSession keeps s as the session (null forgets it: signed out here, the token not revoked). A
   * session made elsewhere is not signed in again when it runs out, unless it is the kept device's.
   */
  setSession(s: Session | null): void {
    if (s?.via !== "device") this.again = null;
    else if (!this.again && this.loadDevice()) this.again = () => this.deviceSignIn(this.loadDevice()!, "");
    this.keep(s);
  }

  private keep(s: Session | null): void {
    this.current = s;
    if (s) this.storage.set(this.sessionKey, JSON.stringify(s));
    else {
      this.storage.remove(this.sessionKey);
      this.again = null;
    }
  }

  private loadDevice(): DeviceCredential | null {
    try {
      const d = JSON.parse(this.storage.get(this.deviceKey) ?? "null") as DeviceCredential | null;
      return d && d.deviceId && d.secret ? d : null;
    } catch {
      return null;
    }
  }

  /** hasDevice reports whether a device credential is kept (a sign-in with it is a returning player). */
  hasDevice(): boolean {
    return this.loadDevice() !== null;
  }

  /** device is the kept device credential, made and kept on first use. */
  device(): DeviceCredential {
    const kept = this.loadDevice();
    if (kept) return kept;
    const d = { deviceId: (this.opts.devicePrefix ?? "dev-") + randomBase64url(18), secret: randomBase64url(32) };
    this.storage.set(this.deviceKey, JSON.stringify(d));
    return d;
  }

  private signedIn(r: SignInResponse, name: string, via: Session["via"]): Session {
    const t = this.now();
    const s: Session = {
      token: r.sessionToken,
      playerId: r.playerId,
      name: r.displayName || name || (this.current?.name ?? ""),
      expires: r.expiresAt ? timestampMs(r.expiresAt) : t + 3600e3,
      issued: t,
      via,
    };
    this.keep(s);
    return s;
  }

  private async deviceSignIn(d: DeviceCredential, name: string): Promise<Session> {
    const r = await this.plain.signIn({ displayName: name, credential: { case: "device", value: d } }, { timeoutMs: this.callTimeoutMs });
    return this.signedIn(r, name, "device");
  }

  /**
   * signInDevice signs in with the kept device credential (made and kept the first time: a new
   * player, who needs a name). name renames a returning player; "" keeps their name. Whenever the
   * gateway no longer takes the session, the client signs in so again.
   */
  async signInDevice(name = ""): Promise<Session> {
    const d = this.device();
    const s = await this.deviceSignIn(d, name);
    this.again = () => this.deviceSignIn(d, "");
    return s;
  }

  /** signInPassword signs in with a user name and password (register: make the account first). */
  async signInPassword(userName: string, password: string, opts: { register?: boolean; name?: string } = {}): Promise<Session> {
    const name = opts.name ?? "";
    const r = await this.plain.signIn({ displayName: name, credential: { case: "password", value: { userName, password, register: !!opts.register } } });
    const s = this.signedIn(r, name, "password");
    this.again = async () =>
      this.signedIn(await this.plain.signIn({ credential: { case: "password", value: { userName, password } } }, { timeoutMs: this.callTimeoutMs }), "", "password");
    return s;
  }

  /** signInGuest signs in as a guest: a new player, whose session is not renewed once refused. */
  async signInGuest(name: string): Promise<Session> {
    const s = this.signedIn(await this.plain.signIn({ displayName: name }), name, "guest");
    this.again = null;
    return s;
  }

  /** refresh exchanges the session's token for a fresh one of the same session (RefreshSession); one call at a time. */
  refresh(): Promise<Session> {
    const s = this.current;
    if (!s) return Promise.reject(new ConnectError("not signed in", Code.Unauthenticated));
    this.refreshing ??= (async () => {
      try {
        const r = await this.plain.refreshSession({}, { headers: { Authorization: "Bearer " + s.token }, timeoutMs: this.callTimeoutMs });
        const t = this.now();
        const next = { ...s, token: r.sessionToken, expires: r.expiresAt ? timestampMs(r.expiresAt) : s.expires, issued: t };
        // A sign-in meanwhile wins.
        if (this.current === s) this.keep(next);
        return this.current ?? next;
      } finally {
        this.refreshing = null;
      }
    })();
    return this.refreshing;
  }

  /** renew gets the client a session the gateway takes: signed in again with its credential, else the refusal. */
  async renew(cause: unknown): Promise<Session> {
    if (!this.again) throw cause;
    return this.again();
  }

  /** token is the session's token, refreshed first when it is due (or signed in again when it ran out). */
  async token(): Promise<string> {
    const s = this.current;
    if (!s) return "";
    const now = this.now();
    const life = s.issued ? s.expires - s.issued : Infinity;
    const margin = Math.min(this.opts.refreshMarginMs ?? 5 * 60e3, life / 2);
    if (now < s.expires - margin) return s.token;
    if (now >= s.expires && !this.again) return s.token; // nothing to renew it with: the gateway says what it takes
    try {
      return (await (now < s.expires ? this.refresh() : this.renew(new ConnectError("session expired", Code.Unauthenticated)))).token;
    } catch (e) {
      // A refusal to refresh (the session's maximum age): sign in again when the client can.
      if (ConnectError.from(e).code === Code.Unauthenticated && this.again) return (await this.again()).token;
      if (now < s.expires) return s.token; // the gateway could not be reached: the token still holds
      throw e;
    }
  }

  /** signOut ends the session on the gateway (its tokens are refused from then on) and forgets it here, even when the gateway could not be reached. */
  async signOut(): Promise<void> {
    try {
      await this.api.signOut({}, { timeoutMs: this.callTimeoutMs });
    } finally {
      this.setSession(null);
    }
  }

  // authed wraps a transport so that every call carries the session's token.
  private authed(t: Transport): Transport {
    const header = async (h: HeadersInit | undefined) => {
      const out = new Headers(h);
      const tok = await this.token();
      if (tok && !out.has("Authorization")) out.set("Authorization", "Bearer " + tok);
      return out;
    };
    return {
      unary: async (method, signal, timeoutMs, h, input, ctx) => t.unary(method, signal, timeoutMs, await header(h), input, ctx),
      stream: async (method, signal, timeoutMs, h, input, ctx) => t.stream(method, signal, timeoutMs, await header(h), input, ctx),
    };
  }

  /**
   * call makes a call with the session's token. When the gateway no longer takes the session it
   * signs in again (with the credential) and calls once more. With retry (calls safe to repeat: an
   * action id, a request id, nothing changed), an answer lost on the way (UNAVAILABLE, no answer
   * within callTimeoutMs) is tried again after a pause, up to `attempts` tries in all.
   */
  async call<T>(f: (opts: { signal?: AbortSignal; timeoutMs?: number }) => Promise<T>, o: { retry?: boolean; signal?: AbortSignal } = {}): Promise<T> {
    const p = new Pauses(this.backoff);
    let renewed = false;
    for (let attempt = 1; ; attempt++) {
      try {
        return await f({ signal: o.signal, timeoutMs: o.retry ? this.callTimeoutMs : undefined });
      } catch (e) {
        if (o.signal?.aborted) throw e;
        const c = ConnectError.from(e).code;
        if (c === Code.Unauthenticated && !renewed && this.again) {
          renewed = true;
          await this.renew(e);
          attempt--;
          continue;
        }
        if (!o.retry || !isRetryable(e) || attempt >= this.attempts) throw e;
        await p.wait(o.signal);
      }
    }
  }

  /** newId is a new action or request id. */
  newId(): string {
    return newId(this.idPrefix);
  }

  /**
   * once makes a call that creates something under one new request id, trying again with the same
   * id when the answer was lost: the gateway applies the id once, so a retry answers what the first
   * try made.
   */
  once<T>(f: (requestId: string, opts: { signal?: AbortSignal; timeoutMs?: number }) => Promise<T>, signal?: AbortSignal): Promise<T> {
    const id = this.newId();
    return this.call((o) => f(id, o), { retry: true, signal });
  }

  /** listGames lists the games and the gateway's default wait. */
  listGames(): Promise<{ games: GameInfo[]; defaultMaxWaitMs: number }> {
    return this.call(async (o) => {
      const r = await this.plain.listGames({}, o);
      return { games: r.games, defaultMaxWaitMs: Number(r.defaultMaxWait?.seconds ?? 0n) * 1000 + (r.defaultMaxWait?.nanos ?? 0) / 1e6 };
    }, { retry: true });
  }

  /** table is a handle on the table id. */
  table(id: string): TableHandle {
    return new TableHandle(this, id);
  }

  /** createTable opens a private (or public) table, once however often its call is retried. */
  async createTable(t: NewTable, signal?: AbortSignal): Promise<TableHandle> {
    const r = await this.once((requestId, o) => this.api.createTable({ ...t, requestId }, o), signal);
    const h = this.table(r.tableId);
    h.noteTable(r.table);
    if (r.inviteCode) h.inviteCode = r.inviteCode;
    return h;
  }

  /** joinTable takes a place at a table by its invite code, or a public one by {tableId} (safe to retry: a player already there keeps the place). */
  async joinTable(by: string | { tableId: string }, signal?: AbortSignal): Promise<TableHandle> {
    const req = typeof by === "string" ? { inviteCode: by } : { tableId: by.tableId };
    const r = await this.call((o) => this.api.joinTable(req, o), { retry: true, signal });
    const h = this.table(r.table!.tableId);
    h.noteTable(r.table);
    return h;
  }

  /** enqueue makes a ticket, once however often its call is retried; it answers the ticket's id. */
  async enqueue(t: Ticket, signal?: AbortSignal): Promise<string> {
    return (await this.once((requestId, o) => this.api.enqueueTicket({ ...t, requestId }, o), signal)).ticketId;
  }

  /**
   * watchTicket follows a ticket (WatchTicket) until it is matched or cancelled, opening the stream
   * again after a drop.
   */
  async *watchTicket(ticketId: string, signal?: AbortSignal): AsyncGenerator<WatchTicketResponse> {
    const p = new Pauses(this.backoff);
    for (;;) {
      try {
        for await (const r of this.api.watchTicket({ ticketId }, { signal })) {
          p.reset();
          yield r;
          if (r.state === TicketState.MATCHED || r.state === TicketState.CANCELLED) return;
        }
      } catch (e) {
        if (signal?.aborted || !isRetryable(e)) throw e;
      }
      await p.wait(signal);
    }
  }

  /**
   * queue makes a ticket and follows it to its table (each progress message to onTicket). A
   * cancelled ticket is a TicketCancelledError.
   */
  async queue(t: Ticket, o: { signal?: AbortSignal; onTicket?: (r: WatchTicketResponse) => void } = {}): Promise<TableHandle> {
    const id = await this.enqueue(t, o.signal);
    for await (const r of this.watchTicket(id, o.signal)) {
      o.onTicket?.(r);
      if (r.state === TicketState.MATCHED) {
        const h = this.table(r.tableId);
        if (r.seat !== undefined) h.seat = r.seat;
        if (t.game) h.game = t.game;
        return h;
      }
      if (r.state === TicketState.CANCELLED) break;
    }
    throw new TicketCancelledError(id);
  }
}
