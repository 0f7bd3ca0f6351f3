import { render } from "preact";
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import { ConnectError, Code } from "@connectrpc/connect";
import { timestampDate, type Any } from "@bufbuild/protobuf/wkt";
import { api, lastName, loadSession, newActionId, once, saveSession, signIn, signedOut, signOutEverywhere, type Session } from "./api";
import { RuleViolationSchema } from "./gen/cardroom/game/v1/game_pb";
import type { Event } from "./gen/cardroom/events/v1/events_pb";
import { TableState, TicketState, type GameInfo, type Table } from "./gen/cardroom/gateway/v1/gateway_pb";
import { BotLevel, PlayerKind, type Outcome, type PlayerRef, type TableSummary } from "./gen/cardroom/game/v1/game_pb";
import { isCard, keyWords, unpack, words, type Plain, type PlainObj } from "./plain";
import { Card, cardsIn, cellOf, chooser, matches, type Legal } from "./cards";
import { SapotagemPane, SponsioPane } from "./games";
import { gameName, Leaderboard, Profile, Room } from "./room";
import { CreateTable } from "./create";
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

function go(screen: string, id = "") {
  location.hash = id ? `#/${screen}/${encodeURIComponent(id)}` : `#/${screen}`;
}

function errorText(e: unknown): string {
  const ce = ConnectError.from(e);
  const v = ce.findDetails(RuleViolationSchema)[0];
  if (v) return `${v.message} (${v.code})`;
  return `${ce.rawMessage} (${Code[ce.code]})`;
}

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
        {(route.screen === "table" || route.screen === "spectate") && (
          <TableScreen key={route.screen + route.id} id={route.id} me={session} spectate={route.screen === "spectate"} />
        )}
        {route.screen === "replay" && <Replay id={route.id} />}
        {route.screen === "lobby" && <Room />}
        {route.screen === "profile" && <Profile id={route.id} />}
        {route.screen === "leaderboard" && <Leaderboard game={route.id} />}
      </main>
    </>
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
      const r = await once((requestId) =>
        api.enqueueTicket({ game, minSeats: g.usualSeats, maxSeats: g.usualSeats, botsMayFill: true, botLevel: fill, requestId }),
      );
      go("queue", r.ticketId);
    } catch (e) {
      setErr(errorText(e));
    }
  };
  const join = async (e: any) => {
    e.preventDefault();
    try {
      const r = await api.joinTable({ inviteCode: code.trim().toUpperCase() });
      go("private", r.table!.tableId);
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
        for await (const r of api.watchTicket({ ticketId: id }, { signal: ac.signal })) {
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
      <h1>Private table: {t.game}</h1>
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
          <button onClick={act(() => api.addBots({ tableId: id, count: 1, requestId: newActionId(), level }))} data-testid="add-bot">
            Add a bot
          </button>{" "}
          <button onClick={act(() => api.startTable({ tableId: id }))} data-testid="start">
            Start
          </button>
        </p>
      )}
      <button onClick={act(async () => (await api.leaveTable({ tableId: id }), go("lobby"), {}))}>Leave</button>
    </section>
  );
}

// ---- the table ----

interface TableData {
  events: Event[];
  lastSeq: number;
  legal: Legal[];
  view: PlainObj | null;
  summary: TableSummary | null;
  seat: number | undefined;
  deadline: number | null;
  finished: Outcome | null;
}

function seatNamer(summary: TableSummary | null, mySeat: number | undefined) {
  const seats = summary?.config?.seats ?? [];
  return (n: number) => {
    const p = seats.find((s) => s.index === n)?.player;
    const name = p?.displayName || `seat ${n}`;
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
  const [d, setD] = useState<TableData>({ events: [], lastSeq: 0, legal: [], view: null, summary: null, seat: undefined, deadline: null, finished: null });
  const [err, setErr] = useState("");
  const [status, setStatus] = useState("connecting");
  const [pick, setPick] = useState<string | null>(null); // narrows the legal moves (a cell, a card, a coupon)
  const data = useRef(d);
  data.current = d;
  const update = (f: (x: TableData) => Partial<TableData>) => {
    data.current = { ...data.current, ...f(data.current) };
    setD(data.current);
  };
  const nameOf = useMemo(() => seatNamer(d.summary, d.seat), [d.summary, d.seat]);

  useEffect(() => {
    const ac = new AbortController();
    let viewBusy = false,
      viewAgain = false;
    // The view after the latest event: one GetView at a time, the events that came meanwhile
    // folded into the next one.
    const refreshView = async () => {
      if (viewBusy) {
        viewAgain = true;
        return;
      }
      viewBusy = true;
      try {
        do {
          viewAgain = false;
          const v = await api.getView({ tableId: id }, { signal: ac.signal });
          update(() => ({
            view: unpack(v.view),
            summary: v.table ?? null,
            seat: v.seat,
            deadline: v.deadline ? timestampDate(v.deadline).getTime() : null,
          }));
        } while (viewAgain && !ac.signal.aborted);
      } catch (e) {
        if (!ac.signal.aborted) setErr(errorText(e));
      } finally {
        viewBusy = false;
      }
    };
    // The events of one burst (one network read) ask for one view.
    let viewSoon = false;
    const viewAfterEvents = () => {
      if (viewSoon) return;
      viewSoon = true;
      setTimeout(() => {
        viewSoon = false;
        refreshView();
      }, 0);
    };
    (async () => {
      let backoff = 250;
      w.__cardroomSeqs = [];
      while (!ac.signal.aborted) {
        try {
          // Resumes after the last event seen: no gap, no duplicate.
          const stream = api.watch({ tableId: id, afterSequence: BigInt(data.current.lastSeq), includeLegalActions: !spectate }, { signal: ac.signal });
          refreshView();
          let first = true;
          for await (const r of stream) {
            if (first) setStatus("connected"), (first = false);
            backoff = 250;
            if (r.event) {
              const ev = r.event;
              const seq = Number(ev.sequence);
              if (seq <= data.current.lastSeq) continue;
              (w.__cardroomRecv ??= {})[seq] = performance.timeOrigin + performance.now();
              const fin = ev.payload?.typeUrl.endsWith(".TableFinished") ? unpackOutcome(ev) : null;
              update((x) => ({ events: [...x.events, ev], lastSeq: seq, finished: fin ?? x.finished }));
              w.__cardroomSeqs.push(seq);
              (w.__cardroomVersions ??= {})[seq] = Number(ev.version);
              viewAfterEvents();
            }
            if (r.legalActions) {
              const labels = r.legalActions.labels;
              const name = seatNamer(data.current.summary, data.current.seat);
              const legal = r.legalActions.actions.map((a, i) => {
                const plain = unpack(a) ?? {};
                // The engine's label when the gateway gives one; else the action's fields in words.
                return { action: a, plain, text: labels[i] || words(plain, name) };
              });
              update(() => ({ legal }));
              setPick(null);
            }
          }
          if (data.current.finished) return;
          setStatus("reconnecting (the stream ended)");
        } catch (e) {
          if (ac.signal.aborted) return;
          const ce = ConnectError.from(e);
          if (ce.code === Code.NotFound || ce.code === Code.PermissionDenied || ce.code === Code.Unauthenticated) {
            setErr(errorText(e));
            return;
          }
          setStatus(`reconnecting (${errorText(e)})`);
          w.__cardroomReconnects = (w.__cardroomReconnects ?? 0) + 1;
        }
        await new Promise((res) => setTimeout(res, backoff));
        backoff = Math.min(backoff * 2, 5000);
      }
    })();
    return () => ac.abort();
  }, [id, spectate]);

  const act = async (l: Legal) => {
    try {
      setErr("");
      setPick(null);
      update(() => ({ legal: [] }));
      const r = await api.act({ tableId: id, action: l.action, actionId: newActionId() });
      // For measurements: when this page's Act returned, by table version.
      (w.__cardroomActs ??= {})[String(r.version)] = performance.timeOrigin + performance.now();
    } catch (e) {
      setErr(errorText(e));
    }
  };
  const choose = chooser(d.legal, pick, setPick, act);

  // Keyboard: 1–9 play the listed moves, Escape shows them all again; every other control (the
  // rest of the moves, cards, cells, coupons) is a button that Tab reaches and Enter presses.
  const shown = d.legal.filter((l) => matches(l, pick));
  const keys = useRef({ shown, act, setPick });
  keys.current = { shown, act, setPick };
  useEffect(() => {
    const f = (e: KeyboardEvent) => {
      if (e.target instanceof HTMLInputElement || e.ctrlKey || e.metaKey || e.altKey) return;
      const { shown, act, setPick } = keys.current;
      const n = Number(e.key);
      if (n >= 1 && n <= 9 && shown[n - 1]) act(shown[n - 1]);
      if (e.key === "Escape") setPick(null);
    };
    addEventListener("keydown", f);
    return () => removeEventListener("keydown", f);
  }, []);

  const game = d.summary?.config?.game ?? "";
  const turn = whoseTurn(game, d.view);
  // The parts that depend on the view only are rebuilt when it changes: an event alone re-renders
  // the log and the status line, nothing else.
  const seats = useMemo(() => <Seats summary={d.summary} mySeat={d.seat} turn={turn} />, [d.summary, d.seat, turn]);
  const pane = useMemo(() => {
    if (!d.view) return null;
    const props = { view: d.view, name: nameOf, legal: d.legal, pick, choose };
    if (game === "sapotagem") return <SapotagemPane {...props} />;
    if (game === "sponsio") return <SponsioPane {...props} />;
    return (
      <>
        {game === "saboteur" && <Board view={d.view} legal={d.legal} pick={pick} onPick={setPick} />}
        {game === "sabaisabai" && <Rows view={d.view} name={nameOf} legal={d.legal} onAct={act} />}
        <ViewPane view={d.view} name={nameOf} />
      </>
    );
  }, [d.view, d.legal, pick, nameOf, game]);
  const moves = useMemo(
    () =>
      !d.finished &&
      d.legal.length > 0 && (
        <div class="actions" role="group" aria-label="your legal moves">
          <h2>
            Your moves{" "}
            {pick && (
              <button onClick={() => setPick(null)} data-testid="show-all">
                show all (Esc)
              </button>
            )}
          </h2>
          {shown.map((l, i) => (
            <button key={i} class="act" data-testid="act" data-cell={cellOf(l.plain) ?? undefined} onClick={() => act(l)} title={i < 9 ? `key ${i + 1}` : undefined}>
              {i < 9 && <kbd>{i + 1}</kbd>} <ActionText plain={l.plain} text={l.text} />
            </button>
          ))}
        </div>
      ),
    [d.legal, d.finished, pick],
  );
  return (
    <section class="table" data-game={game}>
      <h1>
        {game || "table"} {spectate && <small>(spectating)</small>}
      </h1>
      <p class="status" aria-live="polite">
        <span data-testid="conn">{status}</span> · table <code>{id}</code>
        {d.seat !== undefined && !d.finished && (
          <span data-testid="turn">
            {" "}
            · {d.legal.length > 0 ? <b>your move</b> : turn !== undefined ? `${nameOf(turn)} to play` : "waiting"}
          </span>
        )}
        {d.deadline !== null && !d.finished && <Timer deadline={d.deadline} />}
      </p>
      {seats}
      {err && <p role="alert" class="error">{err}</p>}
      {d.finished && <Result outcome={d.finished} name={nameOf} id={id} />}
      {moves}
      {pane}
      <EventLog events={d.events} name={nameOf} />
    </section>
  );
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

function Seats({ summary, mySeat, turn }: { summary: TableSummary | null; mySeat?: number; turn?: number }) {
  const seats = summary?.config?.seats ?? [];
  return (
    <ol class="seats" aria-label="seats">
      {seats.map((s) => (
        <li key={s.index} class={s.index === turn ? "turn" : ""} data-seat={s.index}>
          <b>{s.player?.displayName || `seat ${s.index}`}</b>
          {s.index === mySeat && <span class="you"> (you)</span>}
          {s.player?.kind === PlayerKind.BOT && <span class="bot"> · {botLabel(s.player)}</span>}
          {s.index === turn && <span> · to play</span>}
        </li>
      ))}
    </ol>
  );
}

function Result({ outcome, name, id }: { outcome: Outcome; name: (n: number) => string; id: string }) {
  const rows = [...outcome.results].sort((a, b) => a.rank - b.rank);
  return (
    <div class="result" data-testid="result">
      <h2>Game over</h2>
      {outcome.summary && <p>{outcome.summary}</p>}
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

// ViewPane is the whole view as a tree in words (Saboteur's and sabai-sabai's table beside the
// board and rows).
function ViewPane({ view, name }: { view: PlainObj; name: (n: number) => string }) {
  const rest = { ...view };
  delete rest["@type"];
  delete rest.options;
  return (
    <div class="view">
      <h2>Table</h2>
      <Tree p={rest} name={name} k="" />
    </div>
  );
}

function Board({ view, legal, pick, onPick }: { view: PlainObj; legal: Legal[]; pick: string | null; onPick: (c: string | null) => void }) {
  const board = (view.board as PlainObj[]) ?? [];
  const cells = new Map<string, PlainObj>();
  for (const b of board) {
    const c = (b.cell ?? {}) as PlainObj;
    cells.set(`${c.x ?? 0},${c.y ?? 0}`, b);
  }
  const hot = new Set(legal.map((l) => cellOf(l.plain)).filter((x): x is string => !!x));
  const keys = [...cells.keys(), ...hot].map((k) => k.split(",").map(Number));
  if (keys.length === 0) return null;
  const xs = keys.map((k) => k[0]),
    ys = keys.map((k) => k[1]);
  const x0 = Math.min(...xs) - 1,
    x1 = Math.max(...xs) + 1,
    y0 = Math.min(...ys) - 1,
    y1 = Math.max(...ys) + 1;
  const rows = [];
  for (let y = y1; y >= y0; y--) {
    const tds = [<th scope="row">{y}</th>];
    for (let x = x0; x <= x1; x++) {
      const k = `${x},${y}`;
      const b = cells.get(k);
      const text = b ? (b.faceDown ? "face down" : `${b.card}${b.rotated ? " (rotated)" : ""}`) : "";
      tds.push(
        <td class={`${b ? "filled" : ""} ${hot.has(k) ? "legal" : ""} ${pick === "cell:" + k ? "picked" : ""}`} title={`${k} ${text}`} data-cell={k}>
          {hot.has(k) ? (
            <button aria-label={`place a card at ${k}`} onClick={() => onPick(pick === "cell:" + k ? null : "cell:" + k)}>
              {text || "+"}
            </button>
          ) : (
            text
          )}
        </td>,
      );
    }
    rows.push(<tr>{tds}</tr>);
  }
  const head = [<th />];
  for (let x = x0; x <= x1; x++) head.push(<th scope="col">{x}</th>);
  return (
    <table class="board" aria-label="board (x across, y up)">
      <thead>
        <tr>{head}</tr>
      </thead>
      <tbody>{rows}</tbody>
    </table>
  );
}

// sabai-sabai's rows; a card that may be thrown now is a button, at any moment.
function Rows({ view, name, legal, onAct }: { view: PlainObj; name: (n: number) => string; legal: Legal[]; onAct: (l: Legal) => void }) {
  const rows = (view.rows as PlainObj[]) ?? [];
  const throwOf = (seat: number, slot: number) =>
    legal.find((l) => {
      const t = l.plain.throw as PlainObj | undefined;
      return t && (t.owner ?? 0) === seat && Array.isArray(t.slots) && t.slots.length === 1 && t.slots[0] === slot;
    });
  const nose = legal.find((l) => "touchNose" in l.plain);
  const call = legal.find((l) => "callSabaiSabai" in l.plain);
  return (
    <div class="rows">
      {rows.map((r) => (
        <div class="row" key={String(r.seat)}>
          <b>{name(Number(r.seat ?? 0))}</b>:{" "}
          {((r.slots as PlainObj[]) ?? []).map((s, i) => {
            const t = throwOf(Number(r.seat ?? 0), i);
            // A slot: its card when the viewer knows it (else face down), and who has seen it.
            const seen = Number(s.knownBy ?? 0);
            const who = Array.from({ length: 32 }, (_, b) => b).filter((b) => seen & (1 << b)).map(name);
            const text = s.empty ? "empty" : `${s.card ? `card ${s.card}` : "face down"}${who.length ? `, seen by ${who.join(", ")}` : ""}`;
            return t ? (
              <button class="card hot" aria-label={`throw slot ${i}: ${text}`} onClick={() => onAct(t)}>
                {text}
              </button>
            ) : (
              <span class="card" role="img" aria-label={`slot ${i}: ${text}`}>
                {text}
              </span>
            );
          })}
        </div>
      ))}
      {nose && <button onClick={() => onAct(nose)}>Touch your nose</button>}{" "}
      {call && <button onClick={() => onAct(call)}>Call sabai-sabai</button>}
    </div>
  );
}

function Tree({ p, name, k }: { p: Plain; name: (n: number) => string; k: string }): any {
  if (p === null || p === "" || p === "unspecified") return null;
  if (isCard(p)) return <Card c={p} />;
  if (Array.isArray(p)) {
    if (p.length === 0) return <span class="none">none</span>;
    if (p.every(isCard)) return <span class="cards">{p.map((c, i) => <Card key={i} c={c as PlainObj} />)}</span>;
    if (p.every((x) => typeof x !== "object")) return <span>{words(p, name, k)}</span>;
    return (
      <ol>
        {p.map((x, i) => (
          <li key={i}>
            <Tree p={x} name={name} k={k} />
          </li>
        ))}
      </ol>
    );
  }
  if (typeof p === "object") {
    return (
      <dl>
        {Object.entries(p as PlainObj)
          .filter(([kk, v]) => kk !== "@type" && v !== null && v !== "" && v !== "unspecified" && v !== false)
          .map(([kk, v]) => (
            <div key={kk}>
              <dt>{keyWords(kk)}</dt>
              <dd>
                <Tree p={v} name={name} k={kk} />
              </dd>
            </div>
          ))}
      </dl>
    );
  }
  return <span>{words(p, name, k)}</span>;
}

function eventWords(ev: Event, name: (n: number) => string): string {
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
// (until the seat names change).
function EventLog({ events, name }: { events: Event[]; name: (n: number) => string }) {
  const shown = events.slice(-200);
  const rows = useRef<{ name: typeof name; lines: WeakMap<Event, any> }>({ name, lines: new WeakMap() });
  if (rows.current.name !== name) rows.current = { name, lines: new WeakMap() };
  const lines = rows.current.lines;
  // For measurements: when each event's line reached the DOM (ms since the epoch).
  useLayoutEffect(() => {
    const arr = (w.__cardroomArrivals ??= {});
    const t = performance.timeOrigin + performance.now();
    for (let i = shown.length - 1; i >= 0 && arr[String(shown[i].sequence)] === undefined; i--) arr[String(shown[i].sequence)] = t;
  });
  return (
    <div class="log">
      <h2>What happened</h2>
      <ol aria-live="polite" data-testid="log">
        {shown.map((e) => {
          let li = lines.get(e);
          if (!li) {
            li = (
              <li key={String(e.sequence)} value={Number(e.sequence)} data-seq={String(e.sequence)}>
                {eventWords(e, name)}
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

function Replay({ id }: { id: string }) {
  const [steps, setSteps] = useState<{ label: string; events: Event[] }[]>([]);
  const [summary, setSummary] = useState<TableSummary | null>(null);
  const [i, setI] = useState(0);
  const [err, setErr] = useState("");
  useEffect(() => {
    api.getReplay({ tableId: id }).then(
      (r) => {
        setSummary(r.table ?? null);
        const name = seatNamer(r.table ?? null, undefined);
        const s = [{ label: "the deal", events: r.createdEvents }];
        for (const e of r.entries) {
          const who = e.by.case === "seat" ? name(e.by.value) : e.by.case === "timeout" ? "timeout" : "abort";
          const a = unpack(e.action);
          s.push({ label: `${who}: ${a ? words(a, name) : ""}`, events: e.events });
        }
        setSteps(s);
      },
      (e) => setErr(errorText(e)),
    );
  }, [id]);
  useEffect(() => {
    const f = (e: KeyboardEvent) => {
      if (e.key === "ArrowRight") setI((x) => Math.min(x + 1, steps.length - 1));
      if (e.key === "ArrowLeft") setI((x) => Math.max(x - 1, 0));
    };
    addEventListener("keydown", f);
    return () => removeEventListener("keydown", f);
  }, [steps.length]);
  const name = seatNamer(summary, undefined);
  const seen = useMemo(() => steps.slice(0, i + 1).flatMap((s) => s.events), [steps, i]);
  const outcome = summary?.outcome;
  return (
    <section>
      <h1>Replay of {summary?.config?.game ?? "a table"}</h1>
      {err && <p role="alert" class="error">{err}</p>}
      <Seats summary={summary} />
      <p>
        <button onClick={() => setI(Math.max(i - 1, 0))} aria-label="previous step">
          ←
        </button>{" "}
        step {i} of {Math.max(steps.length - 1, 0)}{" "}
        <button onClick={() => setI(Math.min(i + 1, steps.length - 1))} aria-label="next step">
          →
        </button>{" "}
        <input type="range" min={0} max={Math.max(steps.length - 1, 0)} value={i} onInput={(e) => setI(Number(e.currentTarget.value))} aria-label="step" />
      </p>
      <p data-testid="step">{steps[i]?.label}</p>
      {outcome && i === steps.length - 1 && <Result outcome={outcome} name={name} id={id} />}
      <EventLog events={seen} name={name} />
    </section>
  );
}

const root = document.getElementById("app")!;
root.textContent = "";
render(<App />, root);
