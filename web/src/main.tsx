import { render } from "preact";
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import { ConnectError, Code } from "@connectrpc/connect";
import { timestampDate, type Any } from "@bufbuild/protobuf/wkt";
import { api, cardroom, lastName, loadSession, signIn, signedOut, signOutEverywhere, type Session } from "./api";
import type { Event } from "@cardroom/client/gen/cardroom/events/v1/events_pb";
import { TableState, TicketState, type GameInfo, type Table } from "@cardroom/client/gen/cardroom/gateway/v1/gateway_pb";
import { BotLevel, PlayerKind, type Outcome, type PlayerRef, type TableSummary } from "@cardroom/client/gen/cardroom/game/v1/game_pb";
import { keyWords, unpack, words, type PlainObj } from "./plain";
import { Card, cardsIn, cellOf, chooser, matches, type Legal } from "./cards";
import { SapotagemPane, SponsioPane, gameName, type PaneProps } from "./games";
import { sponsioEventWords } from "./games/sponsio";
import { Replay } from "./replay";
import { SaboteurPane } from "./games/saboteur";
import { SabaiClock, SabaiPane, sabaiStatus, sabaiView } from "./games/sabaisabai";
import { Leaderboard, Profile, Room } from "./room";
import { CreateTable } from "./create";
import { errorText, go } from "./nav";
import "./style.css";

// Where the player is, kept in the URL's hash (and so across reloads): #/, #/private/<table>,
// #/create/<game>, #/queue/<ticket>, #/table/<table>, #/spectate/<table>, #/replay/<table>.
type Route = { screen: string; id: string };

function parseRoute(): Route {
  const [screen = "", id = ""] = location.hash.replace(/^#\/?/, "").split("/");
  return { screen: screen || "lobby", id: decodeURIComponent(id) };
}

// The bot levels a player chooses from, in words (docs/bots.md says what each is).
const levels: [BotLevel, string][] = [
  [BotLevel.EASY, "easy"],
  [BotLevel.NORMAL, "normal"],
  [BotLevel.STRONG, "strong"],
];

// levelName is a bot's level in words (unspecified is normal).
function levelName(l: BotLevel): string {
  return levels.find(([v]) => v === l)?.[1] ?? "normal";
}

// botLabel marks a bot with its level: "bot, strong"; "" for a person.
function botLabel(p: PlayerRef | undefined): string {
  return p?.kind === PlayerKind.BOT ? `bot, ${levelName(p.botLevel)}` : "";
}

function LevelSelect({ value, onChange, label }: { value: BotLevel; onChange: (l: BotLevel) => void; label: string }) {
  return (
    <label>
      {label}{" "}
      <select value={value} onChange={(e) => onChange(Number(e.currentTarget.value) as BotLevel)} data-testid="bot-level">
        {levels.map(([v, n]) => (
          <option key={v} value={v}>
            {n}
          </option>
        ))}
      </select>
    </label>
  );
}

// A table id as the API takes it: 1 to 64 letters, digits, '-' or '_'.
const tableIdPattern = /^[A-Za-z0-9_-]{1,64}$/;

function App() {
  const [session, setSession] = useState<Session | null>(loadSession());
  const [route, setRoute] = useState<Route>(parseRoute());
  useEffect(() => {
    const f = () => setRoute(parseRoute());
    addEventListener("hashchange", f);
    return () => removeEventListener("hashchange", f);
  }, []);
  // A return visit after the session expired signs in again as this browser's device: the same
  // player, at the same seat.
  // A player who signed out is asked to sign in again.
  const [resuming, setResuming] = useState(!session && !signedOut() && !!lastName() && !!localStorage.getItem("cardroom.device"));
  useEffect(() => {
    if (resuming) signIn(lastName()).then(setSession, () => undefined).finally(() => setResuming(false));
  }, []);
  if (resuming) return <p>Signing in…</p>;
  if (!session) {
    return <SignIn onSession={setSession} />;
  }
  const signOut = async () => {
    await signOutEverywhere();
    setSession(null);
    go("lobby");
  };
  return (
    <>
      <header>
        <a href="#/lobby" class="brand">
          cardroom
        </a>
        {session && (
          <span>
            signed in as <b data-testid="me">{session.name}</b>{" "}
            <button onClick={signOut} data-testid="sign-out">
              sign out
            </button>
          </span>
        )}
      </header>
      <main>
        {route.screen === "lobby" && <Lobby />}
        {route.screen === "create" && <CreateTable key={route.id} game={route.id} />}
        {route.screen === "private" && <PrivateTable id={route.id} me={session!} />}
        {route.screen === "queue" && <Queue id={route.id} />}
        {(route.screen === "table" || route.screen === "spectate" || route.screen === "replay") && !tableIdPattern.test(route.id) && (
          <NoTable why={route.id ? `"${route.id}" is not a table id (1 to 64 letters, digits, - or _).` : "The address names no table."} />
        )}
        {(route.screen === "table" || route.screen === "spectate") && tableIdPattern.test(route.id) && (
          <TableScreen key={route.screen + route.id} id={route.id} me={session} spectate={route.screen === "spectate"} />
        )}
        {route.screen === "replay" && tableIdPattern.test(route.id) && <Replay id={route.id} paneFor={paneFor} />}
        {route.screen === "lobby" && <Room />}
        {route.screen === "profile" && <Profile id={route.id} />}
        {route.screen === "leaderboard" && <Leaderboard game={route.id} />}
        {!["lobby", "create", "private", "queue", "table", "spectate", "replay", "profile", "leaderboard"].includes(route.screen) && <NoTable why={`There is no page "${route.screen}".`} />}
      </main>
    </>
  );
}

// NoTable is what a table address that leads nowhere shows: why, and the way back.
export function NoTable({ why }: { why: string }) {
  return (
    <section data-testid="no-table">
      <h1>No such table</h1>
      <p role="alert" class="error">
        {why}
      </p>
      <p>
        <a href="#/lobby" data-testid="back-to-lobby">
          Back to the games
        </a>
      </p>
    </section>
  );
}

function SignIn({ onSession }: { onSession: (s: Session) => void }) {
  const [name, setName] = useState(lastName());
  const [err, setErr] = useState("");
  const submit = async (e: any) => {
    e.preventDefault();
    try {
      onSession(await signIn(name.trim()));
    } catch (e) {
      setErr(errorText(e));
    }
  };
  return (
    <main>
      <h1>cardroom</h1>
      <form onSubmit={submit} class="signin">
        <label>
          Your name{" "}
          <input name="name" autoFocus required maxLength={32} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <button type="submit">Sign in</button>
        {err && <p role="alert" class="error">{err}</p>}
      </form>
    </main>
  );
}

function Lobby() {
  const [games, setGames] = useState<GameInfo[]>([]);
  const [err, setErr] = useState("");
  const [code, setCode] = useState("");
  const [watchId, setWatchId] = useState("");
  const [fill, setFill] = useState(BotLevel.NORMAL);
  const [wait, setWait] = useState(0); // the gateway's wait before bots fill a table, seconds
  useEffect(() => {
    api.listGames({}).then((r) => (setGames(r.games), setWait(Number(r.defaultMaxWait?.seconds ?? 0n))), (e) => setErr(errorText(e)));
  }, []);
  // Play asks for the game's usual table (Saboteur 2: 6 seats) and the gateway's wait.
  const queue = async (g: GameInfo) => {
    const game = g.game;
    try {
      go("queue", await cardroom.enqueue({ game, minSeats: g.usualSeats, maxSeats: g.usualSeats, botsMayFill: true, botLevel: fill }));
    } catch (e) {
      setErr(errorText(e));
    }
  };
  const join = async (e: any) => {
    e.preventDefault();
    try {
      go("private", (await cardroom.joinTable(code.trim().toUpperCase())).id);
    } catch (e) {
      setErr(errorText(e));
    }
  };
  return (
    <section>
      <h1>Games</h1>
      {err && <p role="alert" class="error">{err}</p>}
      <p>
        <LevelSelect value={fill} onChange={setFill} label="Bots that fill free seats play" />
      </p>
      <ul class="games">
        {games.map((g) => (
          <li key={g.game} data-game={g.game}>
            <h2>{gameName(g.game)}</h2>
            <p>
              {g.minSeats}–{g.maxSeats} players
            </p>
            <button onClick={() => queue(g)} data-testid={`queue-${g.game}`}>
              Play: {g.usualSeats} seats, bots fill the free ones after {wait} s
            </button>{" "}
            <button onClick={() => go("create", g.game)} data-testid={`private-${g.game}`}>
              New table…
            </button>
          </li>
        ))}
      </ul>
      <form onSubmit={join}>
        <label>
          Invite code <input value={code} onInput={(e) => setCode(e.currentTarget.value)} required />
        </label>{" "}
        <button type="submit">Join</button>
      </form>
      <form onSubmit={(e) => (e.preventDefault(), go("spectate", watchId.trim()))}>
        <label>
          Table id <input value={watchId} onInput={(e) => setWatchId(e.currentTarget.value)} required />
        </label>{" "}
        <button type="submit">Spectate</button>{" "}
        <button type="button" onClick={() => watchId.trim() && go("replay", watchId.trim())}>
          Replay
        </button>
      </form>
    </section>
  );
}

function Queue({ id }: { id: string }) {
  const [state, setState] = useState("queued");
  const [err, setErr] = useState("");
  useEffect(() => {
    const ac = new AbortController();
    (async () => {
      try {
        for await (const r of cardroom.watchTicket(id, ac.signal)) {
          setState(`${TicketState[r.state].toLowerCase()}, ${r.playersWaiting} waiting`);
          if (r.state === TicketState.MATCHED) return go("table", r.tableId);
          if (r.state === TicketState.CANCELLED) return setErr("the ticket was cancelled");
        }
      } catch (e) {
        if (!ac.signal.aborted) setErr(errorText(e));
      }
    })();
    return () => ac.abort();
  }, [id]);
  const cancel = async () => {
    await api.cancelTicket({ ticketId: id }).catch(() => undefined);
    go("lobby");
  };
  return (
    <section>
      <h1>Finding a table…</h1>
      <p aria-live="polite">{state}</p>
      {err && <p role="alert" class="error">{err}</p>}
      <button onClick={cancel}>Cancel</button>
    </section>
  );
}

function PrivateTable({ id, me }: { id: string; me: Session }) {
  const [t, setT] = useState<Table | null>(null);
  const [level, setLevel] = useState(BotLevel.NORMAL);
  const [err, setErr] = useState("");
  useEffect(() => {
    let stop = false;
    const poll = async () => {
      while (!stop) {
        try {
          const r = await api.getTable({ tableId: id });
          setT(r.table ?? null);
          if (r.table?.state === TableState.PLAYING || r.table?.state === TableState.FINISHED) return go("table", id);
          if (r.table?.state === TableState.CLOSED) return setErr("the table was closed");
        } catch (e) {
          setErr(errorText(e));
        }
        await new Promise((res) => setTimeout(res, 1000));
      }
    };
    poll();
    return () => {
      stop = true;
    };
  }, [id]);
  const act = (f: () => Promise<{ table?: Table }>) => async () => {
    try {
      const r = await f();
      if (r.table) setT(r.table);
      if (r.table?.state === TableState.PLAYING) go("table", id);
    } catch (e) {
      setErr(errorText(e));
    }
  };
  if (!t) return <p>Loading the table…</p>;
  const owner = t.ownerPlayerId === me.playerId;
  return (
    <section>
      <h1>Private table: {gameName(t.game)}</h1>
      <p>
        Invite code: <b data-testid="invite">{t.inviteCode}</b> ({t.players.length}/{t.capacity} places)
      </p>
      <ol>
        {t.players.map((p) => (
          <li key={p.playerId} data-testid="player">
            {p.displayName}
            {p.kind === PlayerKind.BOT ? ` (${botLabel(p)})` : ""}
            {p.playerId === me.playerId ? " (you)" : ""}
          </li>
        ))}
      </ol>
      {err && <p role="alert" class="error">{err}</p>}
      {owner && (
        <p>
          <LevelSelect value={level} onChange={setLevel} label="Level" />{" "}
          <button onClick={act(async () => ({ table: await cardroom.table(id).addBots(1, level) }))} data-testid="add-bot">
            Add a bot
          </button>{" "}
          <button onClick={act(async () => ({ table: await cardroom.table(id).start() }))} data-testid="start">
            Start
          </button>
        </p>
      )}
      <button onClick={act(async () => (await cardroom.table(id).leave(), go("lobby"), {}))}>Leave</button>
    </section>
  );
}

// ---- the table ----

interface TableData {
  events: Event[];
  lastSeq: number;
  legal: Legal[];
  view: PlainObj | null;
  raw: Any | null; // the view as the gateway sent it, for the screens that read it typed
  summary: TableSummary | null;
  seat: number | undefined;
  deadline: number | null;
  finished: Outcome | null;
}

export function seatNamer(summary: TableSummary | null, mySeat: number | undefined) {
  const seats = summary?.config?.seats ?? [];
  return (n: number) => {
    const p = seats.find((s) => s.index === n)?.player;
    const name = p?.displayName || `seat ${n + 1}`;
    return n === mySeat ? `${name} (you)` : name;
  };
}

const turnKeys = ["turn", "toAct", "currentSeat", "turnSeat"];

function whoseTurn(game: string, view: PlainObj | null): number | undefined {
  if (!view) return undefined;
  const key = game === "sabaisabai" ? "turnSeat" : turnKeys.find((k) => typeof view[k] === "number");
  const v = key ? view[key] : undefined;
  return typeof v === "number" ? v : undefined;
}

const w = window as any; // for tests and measurements: what the page showed, and when

function TableScreen({ id, me, spectate }: { id: string; me: Session | null; spectate: boolean }) {
  const [d, setD] = useState<TableData>({ events: [], lastSeq: 0, legal: [], view: null, raw: null, summary: null, seat: undefined, deadline: null, finished: null });
  const [err, setErr] = useState("");
  const [status, setStatus] = useState("connecting");
  const [pick, setPick] = useState<string | null>(null); // narrows the legal moves (a cell, a card, a coupon)
  const [gone, setGone] = useState(""); // the table cannot be watched: why, in words
  const [movesOpen, setMovesOpen] = useState(localStorage.getItem("cardroom.movesOpen") === "1");
  const [page, setPage] = useState(0); // the page of the move list shown
  const data = useRef(d);
  data.current = d;
  const update = (f: (x: TableData) => Partial<TableData>) => {
    data.current = { ...data.current, ...f(data.current) };
    setD(data.current);
  };
  const nameOf = useMemo(() => seatNamer(d.summary, d.seat), [d.summary, d.seat]);

  // The table through the client package: its Watch resumes after the last event delivered (no
  // gap, no duplicate) with a growing pause between failed tries, and keeps the view current (one
  // GetView after the events of one burst, one at a time).
  const table = useMemo(() => cardroom.table(id), [id]);
  useEffect(() => {
    const ac = new AbortController();
    (async () => {
      w.__cardroomSeqs = [];
      try {
        const updates = table.watch({
          signal: ac.signal,
          includeLegalActions: !spectate,
          batch: false,
          view: true,
          onConnect: () => setStatus("connected"),
          onDrop: (e, ended) => {
            setStatus(ended ? "reconnecting (the stream ended)" : `reconnecting (${errorText(e)})`);
            if (!ended) w.__cardroomReconnects = (w.__cardroomReconnects ?? 0) + 1;
          },
          onViewError: (e) => setErr(errorText(e)),
        });
        for await (const u of updates) {
          for (const ev of u.events) {
            const seq = Number(ev.sequence);
            (w.__cardroomRecv ??= {})[seq] = performance.timeOrigin + performance.now();
            const fin = ev.payload?.typeUrl.endsWith(".TableFinished") ? unpackOutcome(ev) : null;
            update((x) => ({ events: [...x.events, ev], lastSeq: seq, finished: fin ?? x.finished }));
            w.__cardroomSeqs.push(seq);
            (w.__cardroomVersions ??= {})[seq] = Number(ev.version);
          }
          if (u.view) {
            const v = u.view;
            update(() => ({
              view: unpack(v.view),
              raw: v.view ?? null,
              summary: v.table ?? null,
              seat: v.seat,
              deadline: v.deadline ? timestampDate(v.deadline).getTime() : null,
            }));
          }
          if (u.choices) {
            const labels = u.choices.labels;
            const name = seatNamer(data.current.summary, data.current.seat);
            const legal = u.choices.actions.map((a, i) => {
              const plain = unpack(a) ?? {};
              // The engine's label when the gateway gives one; else the action's fields in words.
              return { action: a, plain, text: labels[i] || words(plain, name) };
            });
            update(() => ({ legal }));
            setPick(null);
          }
        }
      } catch (e) {
        if (ac.signal.aborted) return;
        // Nothing to reconnect to: say so, and offer the way back.
        setGone(ConnectError.from(e).code === Code.NotFound ? `There is no table ${id}.` : errorText(e));
      }
    })();
    return () => ac.abort();
  }, [table, spectate]);

  const act = async (l: Legal) => {
    const before = data.current.legal;
    try {
      setErr("");
      setPick(null);
      update(() => ({ legal: [] }));
      const r = await table.act(l.action);
      // For measurements: when this page's Act returned, by table version.
      (w.__cardroomActs ??= {})[String(r.version)] = performance.timeOrigin + performance.now();
    } catch (e) {
      // The move was not made: the choices come back (unless the table sent newer ones meanwhile),
      // and the page says what failed.
      if (data.current.legal.length === 0 && !data.current.finished) update(() => ({ legal: before }));
      w.__cardroomActFailures = (w.__cardroomActFailures ?? 0) + 1;
      setErr(`Your move (${l.text}) was not made: ${errorText(e)}. Your choices are back: try again.`);
    }
  };
  const choose = chooser(d.legal, pick, setPick, act);

  // Keyboard: 1–9 play the listed moves, Escape shows them all again; every other control (the
  // rest of the moves, cards, cells, coupons) is a button that Tab reaches and Enter presses.
  const shown = d.legal.filter((l) => matches(l, pick));
  const keys = useRef({ shown, act, setPick, page });
  keys.current = { shown, act, setPick, page };
  useEffect(() => setPage(0), [d.legal, pick]);
  useEffect(() => {
    const f = (e: KeyboardEvent) => {
      if (e.target instanceof HTMLInputElement || e.ctrlKey || e.metaKey || e.altKey) return;
      const { shown, act, setPick } = keys.current;
      const n = Number(e.key);
      const first = keys.current.page * movesPerPage;
      if (n >= 1 && n <= 9 && shown[first + n - 1]) act(shown[first + n - 1]);
      if (e.key === "Escape") setPick(null);
    };
    addEventListener("keydown", f);
    return () => removeEventListener("keydown", f);
  }, []);

  const game = d.summary?.config?.game ?? "";
  const turn = whoseTurn(game, d.view);
  const sabai = useMemo(() => (game === "sabaisabai" ? sabaiView(d.raw) : undefined), [game, d.raw]);
  // The parts that depend on the view only are rebuilt when it changes: an event alone re-renders
  // the log and the status line, nothing else.
  const seats = useMemo(() => <Seats summary={d.summary} mySeat={d.seat} turn={turn} />, [d.summary, d.seat, turn]);
  const pane = useMemo(() => {
    if (!d.view) return null;
    const history = d.events.map((e) => unpackCached(e.payload)).filter((p): p is PlainObj => !!p);
    return paneFor(game, { view: d.view, raw: d.raw ?? undefined, name: nameOf, legal: d.legal, pick, choose, act, history, events: d.events });
  }, [d.view, d.raw, d.legal, pick, nameOf, game, game === "sabaisabai" ? d.events : null]);
  const say = useMemo(() => sayer(game, nameOf, d.view), [game, nameOf, couponsKey(d.view)]);
  // A turn alert: the tab's title, and a notification when the page is hidden and the player allowed it.
  const myTurn = d.seat !== undefined && !d.finished && d.legal.length > 0 && (turn === undefined || turn === d.seat);
  useEffect(() => {
    const base = `${gameName(game) || "table"} · cardroom`;
    document.title = myTurn ? `● Your move · ${base}` : base;
    if (myTurn && document.hidden && "Notification" in window && Notification.permission === "granted") {
      new Notification("Your move", { body: `${gameName(game)}: it is your turn.`, tag: "cardroom-turn" });
    }
  }, [myTurn, game]);
  useEffect(() => () => void (document.title = "cardroom"), []);
  const [notify, setNotify] = useState("Notification" in window ? Notification.permission : "denied");
  const moves = useMemo(
    () =>
      !d.finished &&
      d.legal.length > 0 && (
        <details
          class="actions"
          open={movesOpen}
          onToggle={(e) => {
            const o = (e.currentTarget as HTMLDetailsElement).open;
            localStorage.setItem("cardroom.movesOpen", o ? "1" : "0");
            setMovesOpen(o);
          }}
        >
          <summary data-testid="moves-summary">
            Your moves as a list ({shown.length}
            {pick ? " for this choice" : ""}) · keys 1–9
          </summary>
          <div role="group" aria-label="your legal moves">
            {pick && (
              <button onClick={() => setPick(null)} data-testid="show-all">
                show all (Esc)
              </button>
            )}
            {shown.slice(page * movesPerPage, (page + 1) * movesPerPage).map((l, i) => (
              <button key={i} class="act" data-testid="act" data-cell={cellOf(l.plain) ?? undefined} onClick={() => act(l)} title={i < 9 ? `key ${i + 1}` : undefined}>
                {i < 9 && <kbd>{i + 1}</kbd>} <ActionText plain={l.plain} text={l.text} />
              </button>
            ))}
            {shown.length > movesPerPage && (
              <p class="pages">
                <button disabled={page === 0} onClick={() => setPage(page - 1)} data-testid="moves-prev">
                  previous {movesPerPage}
                </button>{" "}
                moves {page * movesPerPage + 1}–{Math.min((page + 1) * movesPerPage, shown.length)} of {shown.length}{" "}
                <button disabled={(page + 1) * movesPerPage >= shown.length} onClick={() => setPage(page + 1)} data-testid="moves-next">
                  next {movesPerPage}
                </button>
              </p>
            )}
          </div>
        </details>
      ),
    [d.legal, d.finished, pick, movesOpen, page],
  );
  if (gone) return <NoTable why={gone} />;
  return (
    <section class="table" data-game={game}>
      <h1>
        {gameName(game) || "table"} {spectate && <small>(spectating)</small>}
      </h1>
      <p class="status" aria-live="polite">
        <span data-testid="conn">{status}</span> · table <code>{id}</code>
        {d.seat !== undefined && !d.finished && (
          <span data-testid="turn">
            {" "}
            · {sabai ? sabaiStatus(sabai, d.seat, d.legal.some((l) => "throw" in l.plain), nameOf) : d.legal.length > 0 ? <b>your move</b> : turn !== undefined ? `${nameOf(turn)} to play` : "waiting"}
          </span>
        )}
        {sabai && !d.finished && <SabaiClock v={sabai} seat={d.seat} name={nameOf} />}
        {!sabai && d.deadline !== null && !d.finished && <Timer deadline={d.deadline} />}
        {notify === "default" && d.seat !== undefined && !d.finished && (
          <>
            {" "}
            <button class="small" onClick={() => Notification.requestPermission().then(setNotify)}>
              alert me on my turn
            </button>
          </>
        )}
      </p>
      {seats}
      {err && <p role="alert" class="error">{err}</p>}
      {d.finished && <Result outcome={d.finished} name={nameOf} id={id} />}
      {moves}
      {pane}
      <EventLog events={d.events} say={say} />
    </section>
  );
}

// The move list shows this many moves at a time (the keyboard's path; the table's own controls
// are the pointer's).
const movesPerPage = 20;

// The unpacked payload of an event, kept: the panes read the history again at every view.
const unpacked = new WeakMap<object, PlainObj | null>();
export function unpackCached(a: Any | undefined): PlainObj | null {
  if (!a) return null;
  let p = unpacked.get(a);
  if (p === undefined) unpacked.set(a, (p = unpack(a)));
  return p;
}

// paneFor draws a game's table from its view (the live table, and the replay with no moves).
export function paneFor(game: string, props: PaneProps) {
  if (game === "sapotagem") return <SapotagemPane {...props} />;
  if (game === "sponsio") return <SponsioPane {...props} />;
  // Saboteur's and sabai-sabai's tables read the typed view (the Any as the gateway sent it).
  const act = props.act ?? (() => undefined);
  if (game === "saboteur" && props.raw) return <SaboteurPane raw={props.raw} legal={props.legal} act={act} name={props.name} />;
  if (game === "sabaisabai" && props.raw) return <SabaiPane raw={props.raw} legal={props.legal} act={act} name={props.name} events={props.events ?? []} />;
  return null;
}

// couponsKey is what of a view the log's words depend on (Sponsio's coupons), as a string.
function couponsKey(view: PlainObj | null): string {
  return view && Array.isArray(view.coupons) ? JSON.stringify(view.coupons) : "";
}

// sayer says a game's events in words: the engine's label, or for Sponsio's bets the option in
// words from the table's coupons.
export function sayer(game: string, name: (n: number) => string, view: PlainObj | null): (ev: Event) => string {
  const coupons = new Map(((view?.coupons as PlainObj[]) ?? []).map((c) => [Number(c.number), c]));
  return (ev) => {
    if (game === "sponsio" && coupons.size > 0) {
      const p = unpackCached(ev.payload);
      const said = p && sponsioEventWords(p, name, coupons);
      if (said) return said;
    }
    return eventWords(ev, name);
  };
}

// Timer ticks on its own: the table does not re-render twice a second for it.
function Timer({ deadline }: { deadline: number }) {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 500);
    return () => clearInterval(t);
  }, []);
  return <span data-testid="timer"> · {Math.max(0, Math.round((deadline - now) / 1000))}s left</span>;
}

function unpackOutcome(ev: Event): Outcome | null {
  // TableFinished carries the outcome; unpacked with the generated schema for typed access.
  const p = unpack(ev.payload) as any;
  if (!p?.outcome) return null;
  return {
    $typeName: "cardroom.game.v1.Outcome",
    results: (p.outcome.results ?? []).map((r: any) => ({ $typeName: "cardroom.game.v1.SeatResult", seat: r.seat, score: BigInt(r.score), rank: r.rank, winner: r.winner })),
    aborted: !!p.outcome.aborted,
    summary: p.outcome.summary ?? "",
  };
}

export function Seats({ summary, mySeat, turn }: { summary: TableSummary | null; mySeat?: number; turn?: number }) {
  const seats = summary?.config?.seats ?? [];
  return (
    <ol class="seats" aria-label="seats">
      {seats.map((s) => (
        <li key={s.index} class={s.index === turn ? "turn" : ""} data-seat={s.index}>
          <span class="seatno" title={`seat ${s.index + 1}`}>
            {s.index + 1}
          </span>{" "}
          <b>{s.player?.displayName || `seat ${s.index + 1}`}</b>
          {s.index === mySeat && <span class="you"> (you)</span>}
          {s.player?.kind === PlayerKind.BOT && <span class="bot"> · {botLabel(s.player)}</span>}
          {s.index === turn && <span> · to play</span>}
        </li>
      ))}
    </ol>
  );
}

// summaryWords names the seats of an engine's summary ("seat 0 wins", "seats [0 2] share the win":
// the API's numbers, from 0).
function summaryWords(s: string, name: (n: number) => string): string {
  return s
    .replace(/\bseats \[([\d ]+)\]/g, (_, xs: string) => xs.trim().split(/\s+/).map((x) => name(Number(x))).join(" and "))
    .replace(/\bseat (\d+)\b/g, (_, x: string) => name(Number(x)));
}

export function Result({ outcome, name, id }: { outcome: Outcome; name: (n: number) => string; id: string }) {
  const rows = [...outcome.results].sort((a, b) => a.rank - b.rank);
  return (
    <div class="result" data-testid="result">
      <h2>Game over</h2>
      {outcome.summary && <p data-testid="summary">{summaryWords(outcome.summary, name)}</p>}
      <table>
        <thead>
          <tr>
            <th>rank</th>
            <th>player</th>
            <th>score</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.seat} data-seat={r.seat} data-score={String(r.score)} data-rank={r.rank}>
              <td>{r.rank}</td>
              <td>
                {name(r.seat)}
                {r.winner && " 🏆 winner"}
              </td>
              <td>{String(r.score)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p>
        <a href={`#/replay/${id}`}>Step through the replay</a> · <a href="#/lobby">Back to the games</a>
      </p>
    </div>
  );
}

function ActionText({ plain, text }: { plain: PlainObj; text: string }) {
  const cards = cardsIn(plain);
  return (
    <span>
      {cards.slice(0, 3).map((c, i) => (
        <Card key={i} c={c} />
      ))}{" "}
      {text}
    </span>
  );
}

export function eventWords(ev: Event, name: (n: number) => string): string {
  if (ev.label) return ev.label; // the engine's words, when the gateway gives them
  const p = unpack(ev.payload);
  if (!p) return "(unknown event)";
  const type = String(p["@type"]);
  if (type === "TableCreated") return "the table was dealt";
  if (type === "TableFinished") return "the game is over";
  const w = words(p, name);
  return w || keyWords(type);
}

// EventLog keeps each line it drew: a new event adds one line, the others are not rendered again
// (until the words change: the seat names, Sponsio's coupons). It follows the newest line unless
// the reader scrolled up.
export function EventLog({ events, say, title = "What happened" }: { events: Event[]; say: (ev: Event) => string; title?: string }) {
  const shown = events.slice(-200);
  const rows = useRef<{ say: typeof say; lines: WeakMap<Event, any> }>({ say, lines: new WeakMap() });
  if (rows.current.say !== say) rows.current = { say, lines: new WeakMap() };
  const lines = rows.current.lines;
  const list = useRef<HTMLOListElement>(null);
  const follow = useRef(true);
  const bottom = useRef(0); // the height the log last scrolled itself to
  const lastShown = shown.length ? shown[shown.length - 1] : null;
  useEffect(() => {
    // In the next frame, with the layout the frame makes anyway: not a forced layout per event.
    const el = list.current;
    if (!el || !follow.current) return;
    const f = requestAnimationFrame(() => (el.scrollTop = bottom.current = el.scrollHeight));
    return () => cancelAnimationFrame(f);
  }, [lastShown]);
  // For measurements: when each event's line reached the DOM (ms since the epoch).
  useLayoutEffect(() => {
    const arr = (w.__cardroomArrivals ??= {});
    const t = performance.timeOrigin + performance.now();
    for (let i = shown.length - 1; i >= 0 && arr[String(shown[i].sequence)] === undefined; i--) arr[String(shown[i].sequence)] = t;
  });
  return (
    <div class="log">
      <h2>{title}</h2>
      <ol
        aria-live="polite"
        data-testid="log"
        ref={list}
        tabIndex={0}
        aria-label="events, newest last"
        onScroll={(e) => {
          // Following stops when the reader scrolls up, not when lines arrived after the log's own
          // scroll and before its scroll event (the bottom it scrolled to counts).
          const el = e.currentTarget;
          follow.current = el.scrollTop + el.clientHeight >= Math.min(el.scrollHeight, Math.max(bottom.current, el.clientHeight)) - 8;
        }}
      >
        {shown.map((e) => {
          let li = lines.get(e);
          if (!li) {
            li = (
              <li key={String(e.sequence)} value={Number(e.sequence)} data-seq={String(e.sequence)}>
                {say(e)}
              </li>
            );
            lines.set(e, li);
          }
          return li;
        })}
      </ol>
    </div>
  );
}

const root = document.getElementById("app")!;
root.textContent = "";
render(<App />, root);
