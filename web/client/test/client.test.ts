import { describe, expect, test } from "vitest";
import { Code, ConnectError, createRouterTransport, type HandlerContext, type ServiceImpl } from "@connectrpc/connect";
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { anyPack, timestampFromMs } from "@bufbuild/protobuf/wkt";
import { GatewayService, type WatchResponseSchema } from "../src/gen/cardroom/gateway/v1/gateway_pb.js";
import { EventSchema, TableCreatedSchema, TableFinishedSchema, type Event } from "../src/gen/cardroom/events/v1/events_pb.js";
import { RuleViolationSchema } from "../src/gen/cardroom/game/v1/game_pb.js";
import { ActionSchema } from "../src/gen/cardroom/sapotagem/v1/sapotagem_pb.js";
import { CardroomClient, isRetryable, isStale, memoryStorage, violationCode, type Storage, type Update } from "../src/index.js";

const fast = { first: 1, max: 2, factor: 2, jitter: 0 };
const HOUR = 3600e3;

// A gateway of one table with a log of n events (sequence i at version i), and a clock.
function fake(routes: Partial<ServiceImpl<typeof GatewayService>> = {}) {
  const seen = { tokens: [] as string[], signIns: [] as string[], refreshes: 0 };
  let now = 1_000_000;
  let issued = 0;
  const token = (ctx: HandlerContext) => {
    const t = (ctx.requestHeader.get("Authorization") ?? "").replace(/^Bearer /, "");
    seen.tokens.push(t);
    return t;
  };
  const transport = createRouterTransport(({ service }) =>
    service(GatewayService, {
      signIn(req) {
        seen.signIns.push(req.credential.case === "device" ? req.credential.value.deviceId : "guest");
        return { playerId: "p-1", sessionToken: `tok-${++issued}`, expiresAt: timestampFromMs(now + HOUR), displayName: req.displayName || "Ann" };
      },
      refreshSession(_req, ctx) {
        seen.refreshes++;
        const old = token(ctx);
        if (!old.startsWith("tok-")) throw new ConnectError("no session", Code.Unauthenticated);
        return { sessionToken: `tok-${++issued}`, expiresAt: timestampFromMs(now + HOUR) };
      },
      getTable(req, ctx) {
        token(ctx);
        return { table: { tableId: req.tableId, game: "sapotagem" } };
      },
      ...routes,
    }),
  );
  return { transport, seen, tick: (ms: number) => (now += ms), now: () => now };
}

function event(seq: number, payload = anyPack(TableCreatedSchema, create(TableCreatedSchema))): Event {
  return create(EventSchema, { tableId: "t-1", game: "sapotagem", sequence: BigInt(seq), version: BigInt(seq), payload, label: `event ${seq}` });
}

function finished(seq: number): Event {
  return event(seq, anyPack(TableFinishedSchema, create(TableFinishedSchema, { actions: 7n })));
}

const legal = (version: number): MessageInitShape<typeof WatchResponseSchema> => ({
  legalActions: {
    version: BigInt(version),
    actions: [anyPack(ActionSchema, create(ActionSchema, { kind: { case: "jump", value: {} } }))],
    labels: ["jump"],
  },
});

describe("watch", () => {
  test("resumes after its cursor on every drop: no gap, no duplicate", async () => {
    const afters: bigint[] = [];
    const log = Array.from({ length: 9 }, (_, i) => (i === 8 ? finished(9) : event(i + 1)));
    let opened = 0;
    const f = fake({
      async *watch(req) {
        afters.push(req.afterSequence);
        const from = Number(req.afterSequence);
        opened++;
        if (opened === 1) {
          // three events, the list at version 3, then the connection is cut
          for (const e of log.slice(0, 3)) yield { event: e };
          yield legal(3);
          throw new ConnectError("connection reset", Code.Unavailable);
        }
        if (opened === 2) {
          // a stream that repeats what was delivered, brings two more and ends early
          for (const e of log.slice(from - 2, from + 2)) yield { event: e };
          return;
        }
        if (opened === 3) throw new ConnectError("gateway restarting", Code.Unavailable);
        yield { events: log.slice(from) };
      },
    });
    const c = new CardroomClient({ transport: f.transport, backoff: fast });
    const t = c.table("t-1");
    const drops: [Code, boolean][] = [];
    const seqs: number[] = [];
    const updates: Update[] = [];
    for await (const u of t.watch({ batch: false, onDrop: (e, ended) => drops.push([e.code, ended]) })) {
      updates.push(u);
      seqs.push(...u.events.map((e) => Number(e.sequence)));
    }
    expect(seqs).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(afters).toEqual([0n, 3n, 5n, 5n]);
    expect(drops).toEqual([
      [Code.Unavailable, false],
      [Code.Unavailable, true],
      [Code.Unavailable, false],
    ]);
    expect(updates.filter((u) => u.resumed).length).toBe(2);
    expect(t.cursor).toBe(9n);
    expect(t.finished?.actions).toBe(7n);
    expect(updates.at(-1)?.finished).toBeDefined();
    // the list at version 3 came, and was past once version 4 was seen
    expect(updates.find((u) => u.choices)?.choices?.labels).toEqual(["jump"]);
    expect(t.choices).toBeNull();
  });

  test("keeps the seat's choices at hand until the table moves past them", async () => {
    let release!: () => void;
    const hold = new Promise<void>((r) => (release = r));
    const f = fake({
      async *watch() {
        yield { events: [event(1), event(2)], ...legal(2) };
        await hold;
        yield { events: [finished(3)] };
      },
    });
    const c = new CardroomClient({ transport: f.transport, backoff: fast });
    const t = c.table("t-1");
    const it = t.watch();
    const first = await it.next();
    expect(first.value?.choices?.version).toBe(2n);
    expect(t.choices?.labels).toEqual(["jump"]);
    release();
    const rest: Update[] = [];
    for await (const u of it) rest.push(u);
    expect(rest.map((u) => u.events.map((e) => e.sequence))).toEqual([[3n]]);
    expect(t.choices).toBeNull();
  });

  test("stops when its signal is aborted, and ends on a refusal", async () => {
    const ac = new AbortController();
    const f = fake({
      async *watch(req, ctx) {
        if (req.tableId === "gone") throw new ConnectError("no table", Code.NotFound);
        yield { event: event(1) };
        await new Promise((r) => ctx.signal.addEventListener("abort", r));
      },
    });
    const c = new CardroomClient({ transport: f.transport, backoff: fast });
    const got: bigint[] = [];
    for await (const u of c.table("t-1").watch({ signal: ac.signal })) {
      got.push(...u.events.map((e) => e.sequence));
      ac.abort();
    }
    expect(got).toEqual([1n]);
    await expect(async () => {
      for await (const _ of c.table("gone").watch()) void _;
    }).rejects.toMatchObject({ code: Code.NotFound });
  });

  test("keeps the view current after the events", async () => {
    let views = 0;
    const f = fake({
      async *watch() {
        yield { events: [event(1), event(2)] };
        yield { events: [finished(3)] };
      },
      getView() {
        views++;
        return { version: 3n, seat: 1, lastSequence: 3n };
      },
    });
    const c = new CardroomClient({ transport: f.transport, backoff: fast });
    const t = c.table("t-1");
    for await (const _ of t.watch({ view: true })) void _;
    expect(views).toBeGreaterThanOrEqual(1);
    expect(t.seat).toBe(1);
  });
});

describe("act", () => {
  const action = anyPack(ActionSchema, create(ActionSchema));

  test("retries a lost answer with the same action id, applied once", async () => {
    const ids: string[] = [];
    const applied = new Set<string>();
    const f = fake({
      act(req) {
        ids.push(req.actionId);
        const replayed = applied.has(req.actionId);
        applied.add(req.actionId);
        if (ids.length === 1) throw new ConnectError("connection reset", Code.Unavailable); // applied, answer lost
        if (ids.length === 2) throw new ConnectError("no answer in time", Code.DeadlineExceeded);
        return { version: 5n, replayed };
      },
    });
    const c = new CardroomClient({ transport: f.transport, backoff: fast });
    const r = await c.table("t-1").act(action);
    expect(ids.length).toBe(3);
    expect(new Set(ids).size).toBe(1);
    expect(applied.size).toBe(1);
    expect(r.replayed).toBe(true);
    // a second move is another id
    await c.table("t-1").act(action);
    expect(new Set(ids).size).toBe(2);
  });

  test("a try with no answer within the call timeout is tried again with the same id", async () => {
    const ids: string[] = [];
    const f = fake({
      async act(req, ctx) {
        ids.push(req.actionId);
        if (ids.length === 1) await new Promise((r) => ctx.signal.addEventListener("abort", r)); // no answer
        return { version: 2n };
      },
    });
    const c = new CardroomClient({ transport: f.transport, backoff: fast, callTimeoutMs: 20 });
    await c.table("t-1").act(action);
    expect(ids.length).toBe(2);
    expect(ids[0]).toBe(ids[1]);
  });

  test("a stale choice is refused once, not retried", async () => {
    const versions: (bigint | undefined)[] = [];
    const f = fake({
      async *watch() {
        yield { events: [event(1)], ...legal(4) };
      },
      act(req) {
        versions.push(req.expectedVersion);
        throw new ConnectError("stale", Code.Aborted, undefined, [{ desc: RuleViolationSchema, value: { code: "STALE_VERSION", message: "the table moved on" } }]);
      },
    });
    const c = new CardroomClient({ transport: f.transport, backoff: fast });
    const t = c.table("t-1");
    for await (const u of t.watch()) if (u.choices) break;
    const err = await t.choose("jump").catch((e) => e);
    expect(isStale(err)).toBe(true);
    expect(violationCode(err)).toBe("STALE_VERSION");
    expect(versions).toEqual([4n]);
  });
});

describe("session", () => {
  test("keeps the device credential where it is told: the same player again", async () => {
    const f = fake();
    const kept: Storage = memoryStorage();
    const a = new CardroomClient({ transport: f.transport, storage: kept, now: f.now });
    await a.signInDevice("Ann");
    const b = new CardroomClient({ transport: f.transport, storage: kept, now: f.now });
    expect(b.session?.token).toBe("tok-1"); // the kept session
    await b.signInDevice();
    expect(f.seen.signIns.length).toBe(2);
    expect(f.seen.signIns[0]).toBe(f.seen.signIns[1]);
    expect(b.session?.name).toBe("Ann");
  });

  test("refreshes the session before it expires", async () => {
    const f = fake();
    const c = new CardroomClient({ transport: f.transport, now: f.now });
    await c.signInDevice("Ann");
    await c.table("t-1").info();
    expect(f.seen.refreshes).toBe(0);
    f.tick(HOUR - 60e3); // a minute left
    await c.table("t-1").info();
    await c.table("t-1").info();
    expect(f.seen.refreshes).toBe(1);
    expect(f.seen.tokens).toEqual(["tok-1", "tok-1", "tok-2", "tok-2"]); // the refresh sent the old one
    expect(c.session?.expires).toBe(f.now() + HOUR);
  });

  test("signs in again with the device when the gateway no longer takes the session", async () => {
    const f = fake({
      getTable(req, ctx) {
        const t = ctx.requestHeader.get("Authorization");
        if (t === "Bearer tok-1") throw new ConnectError("session signed out", Code.Unauthenticated);
        return { table: { tableId: req.tableId } };
      },
    });
    const c = new CardroomClient({ transport: f.transport, now: f.now });
    await c.signInDevice("Ann");
    await c.table("t-1").info();
    expect(f.seen.signIns.length).toBe(2);
    expect(c.session?.token).toBe("tok-2");
  });

  test("a watch refused for its session signs in again and resumes after its cursor", async () => {
    const afters: bigint[] = [];
    const f = fake({
      async *watch(req, ctx) {
        afters.push(req.afterSequence);
        if (ctx.requestHeader.get("Authorization") === "Bearer tok-1") {
          if (req.afterSequence === 0n) {
            yield { event: event(1) };
            throw new ConnectError("connection reset", Code.Unavailable);
          }
          throw new ConnectError("session signed out", Code.Unauthenticated);
        }
        yield { events: [event(2), finished(3)] };
      },
    });
    const c = new CardroomClient({ transport: f.transport, backoff: fast, now: f.now });
    await c.signInDevice("Ann");
    const seqs: bigint[] = [];
    for await (const u of c.table("t-1").watch()) seqs.push(...u.events.map((e) => e.sequence));
    expect(seqs).toEqual([1n, 2n, 3n]);
    expect(afters).toEqual([0n, 1n, 1n]);
    expect(f.seen.signIns.length).toBe(2);
  });

  test("a guest is not signed in again", async () => {
    const f = fake({
      getTable() {
        throw new ConnectError("expired", Code.Unauthenticated);
      },
    });
    const c = new CardroomClient({ transport: f.transport, now: f.now });
    await c.signInGuest("Cy");
    await expect(c.table("t-1").info()).rejects.toMatchObject({ code: Code.Unauthenticated });
    expect(f.seen.signIns.length).toBe(1);
  });
});

test("a lost connection, a deadline and UNAVAILABLE may be retried; a refusal may not", () => {
  // connect-web reports fetch's own failure as UNKNOWN with fetch's TypeError as the cause
  expect(isRetryable(new ConnectError("fetch failed", Code.Unknown, undefined, undefined, new TypeError("fetch failed")))).toBe(true);
  expect(isRetryable(new ConnectError("gone", Code.Unavailable))).toBe(true);
  expect(isRetryable(new ConnectError("late", Code.DeadlineExceeded))).toBe(true);
  expect(isRetryable(new ConnectError("odd", Code.Unknown))).toBe(false);
  expect(isRetryable(new ConnectError("no", Code.FailedPrecondition))).toBe(false);
});
