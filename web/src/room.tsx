// The room: the public lists of tables (live to spectate, open to join, finished to replay), the
// player's own games to resume, player pages with ratings and a rating chart, and leaderboards.
// Everything comes from the gateway (ListTables, ListMyTables, GetPlayerProfile, GetLeaderboard).
import { useEffect, useState } from "preact/hooks";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { api } from "./api";
import { gameName, gameNames } from "./games/common";
import { errorText, go } from "./nav";
import { Account } from "./account";
import { PlayerKind, type PlayerRef } from "@cardroom/client/gen/cardroom/game/v1/game_pb";
import {
  TableState,
  type GetGameFiguresResponse,
  type GetLeaderboardResponse,
  type GetPlayerProfileResponse,
  type ListMyTablesResponse,
  type Table,
} from "@cardroom/client/gen/cardroom/gateway/v1/gateway_pb";

function who(p: PlayerRef | undefined): string {
  if (!p) return "";
  return p.kind === PlayerKind.BOT ? `${p.displayName} (bot)` : p.displayName;
}

function people(t: Table): string {
  const ps = t.seats.length > 0 ? t.seats.map((s) => s.player) : t.players;
  return ps.map(who).join(", ");
}

function when(t: Table): string {
  const ts = t.finishedAt ?? t.startedAt ?? t.createdAt;
  return ts ? timestampDate(ts).toLocaleTimeString() : "";
}

// TableRow is one table of a list; choosing it does what the list is for.
function TableRow({ t, action, onPick }: { t: Table; action: string; onPick: (t: Table) => void }) {
  return (
    <li data-table={t.tableId}>
      <button class="link" onClick={() => onPick(t)} data-testid={`${action}-${t.tableId}`}>
        {action}
      </button>{" "}
      <b>{gameName(t.game)}</b> · {people(t)}
      {t.state === TableState.OPEN && ` · ${t.players.length}/${t.capacity} seated`} · <small>{when(t)}</small>
    </li>
  );
}

const lists: { state: TableState; title: string; action: string; empty: string }[] = [
  { state: TableState.PLAYING, title: "Being played", action: "watch", empty: "No game is being played." },
  { state: TableState.OPEN, title: "Waiting for players", action: "join", empty: "No open table." },
  { state: TableState.FINISHED, title: "Recently finished", action: "replay", empty: "No finished game yet." },
];

// Room lists the caller's games and the public tables; it reads each list once when shown (and on
// "refresh"): the server keeps the lists, nothing polls them.
export function Room() {
  const [mine, setMine] = useState<ListMyTablesResponse | null>(null);
  const [tables, setTables] = useState<Record<number, Table[]>>({});
  const [err, setErr] = useState("");
  const [n, setN] = useState(0);
  useEffect(() => {
    api.listMyTables({}).then(setMine, (e) => setErr(errorText(e)));
    for (const l of lists) {
      api.listTables({ state: l.state, pageSize: 10 }).then(
        (r) => setTables((m) => ({ ...m, [l.state]: r.tables })),
        (e) => setErr(errorText(e)),
      );
    }
  }, [n]);
  const pick = (action: string) => async (t: Table) => {
    try {
      if (action === "watch") go("spectate", t.tableId);
      else if (action === "replay") go("replay", t.tableId);
      else if (action === "resume") go(t.state === TableState.OPEN ? "private" : "table", t.tableId);
      else {
        const r = await api.joinTable({ tableId: t.tableId });
        go("private", r.table!.tableId);
      }
    } catch (e) {
      setErr(errorText(e));
    }
  };
  return (
    <section class="room" aria-label="the room">
      {err && <p role="alert" class="error">{err}</p>}
      <h2>Your games</h2>
      {mine && mine.inProgress.length === 0 && mine.finished.length === 0 && <p>None yet.</p>}
      <ul data-testid="your-games">
        {mine?.inProgress.map((t) => <TableRow key={t.tableId} t={t} action="resume" onPick={pick("resume")} />)}
        {mine?.finished.slice(0, 5).map((t) => <TableRow key={t.tableId} t={t} action="replay" onPick={pick("replay")} />)}
      </ul>
      {lists.map((l) => (
        <div key={l.state}>
          <h2>{l.title}</h2>
          {tables[l.state]?.length === 0 && <p>{l.empty}</p>}
          <ul data-testid={`list-${l.action}`}>
            {tables[l.state]?.map((t) => <TableRow key={t.tableId} t={t} action={l.action} onPick={pick(l.action)} />)}
          </ul>
        </div>
      ))}
      <Games />
      <Account />
      <p>
        <button onClick={() => setN(n + 1)} data-testid="refresh">
          refresh
        </button> · <a href="#/profile">your page</a> ·{" "}
        {Object.keys(gameNames).map((g) => (
          <span key={g}>
            <a href={`#/leaderboard/${g}`}>{gameName(g)} leaderboard</a>{" "}
          </span>
        ))}
      </p>
    </section>
  );
}

// RatingChart draws a player's rating after each recent game, oldest on the left (plain SVG).
export function RatingChart({ points }: { points: number[] }) {
  if (points.length < 2) return null;
  const w = 320,
    h = 120,
    pad = 8;
  const lo = Math.min(...points),
    hi = Math.max(...points);
  const span = hi - lo || 1;
  const xy = points.map((p, i) => [pad + (i * (w - 2 * pad)) / (points.length - 1), h - pad - ((p - lo) * (h - 2 * pad)) / span]);
  return (
    <svg viewBox={`0 0 ${w} ${h}`} width={w} height={h} role="img" aria-label={`rating from ${lo.toFixed(1)} to ${hi.toFixed(1)}`} data-testid="rating-chart">
      <polyline points={xy.map(([x, y]) => `${x},${y}`).join(" ")} fill="none" stroke="currentColor" stroke-width="2" />
      {xy.map(([x, y], i) => (
        <circle key={i} cx={x} cy={y} r="3">
          <title>{points[i].toFixed(2)}</title>
        </circle>
      ))}
    </svg>
  );
}

// Profile is a player's page (empty id: the caller's), as far as their visibility setting shows it.
export function Profile({ id }: { id: string }) {
  const [p, setP] = useState<GetPlayerProfileResponse | null>(null);
  const [err, setErr] = useState("");
  useEffect(() => {
    api.getPlayerProfile({ playerId: id, recentLimit: 20 }).then(setP, (e) => setErr(errorText(e)));
  }, [id]);
  if (err) return <p role="alert" class="error">{err}</p>;
  if (!p) return <p>Loading…</p>;
  return (
    <section aria-label="player page">
      <h1 data-testid="profile-name">{p.displayName}</h1>
      <table>
        <thead>
          <tr>
            <th>game</th>
            <th>rating</th>
            <th>games</th>
            <th>wins</th>
          </tr>
        </thead>
        <tbody>
          {p.games.map((g) => (
            <tr key={g.game} data-game={g.game}>
              <td>{gameName(g.game)}</td>
              <td title={g.rating ? `μ ${g.rating.mu.toFixed(2)}, σ ${g.rating.sigma.toFixed(2)}` : ""} data-testid={`rating-${g.game}`}>
                {g.rating ? g.rating.ordinal.toFixed(1) : "—"}
              </td>
              <td>{String(g.games)}</td>
              <td>{String(g.wins)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <RatingChart points={[...p.recent].reverse().filter((r) => !r.aborted).map((r) => r.ratingAfter)} />
      <h2>Recent games</h2>
      <ul data-testid="recent-games">
        {p.recent.map((r) => (
          <li key={r.tableId}>
            <a href={`#/replay/${r.tableId}`}>{gameName(r.game)}</a> · {r.winner ? "won" : `rank ${r.rank} of ${r.playerCount}`}
            {r.finishedAt && ` · ${timestampDate(r.finishedAt).toLocaleString()}`}
          </li>
        ))}
      </ul>
    </section>
  );
}

// Figures are a game's figures from the stats service (GetGameFigures): games played, their
// length, and how each seat fared at the most common table size.
function Figures({ game }: { game: string }) {
  const [f, setF] = useState<GetGameFiguresResponse | null>(null);
  useEffect(() => {
    api.getGameFigures({ game }).then(setF, () => setF(null));
  }, [game]);
  const st = f?.stats;
  if (!st) return null;
  const counts = [...st.playerCounts].sort((a, b) => Number(b.games - a.games));
  const usual = counts[0]?.playerCount;
  const seats = st.seatPositions.filter((p) => p.playerCount === usual).sort((a, b) => a.seat - b.seat);
  const minutes = (ms: number) => (ms / 60000).toFixed(1);
  return (
    <section aria-label="figures" class="figures" data-testid="figures">
      <h2>Figures</h2>
      <ul>
        <li>
          {String(st.gamesFinished)} {st.gamesFinished === 1n ? "game" : "games"} played to the end, {String(st.gamesAborted)} abandoned;{" "}
          {String(f?.live?.tablesInPlay ?? 0n)} tables in play now
        </li>
        {st.durationMs && st.durationMs.count > 0n && (
          <li>
            a game lasts {minutes(st.durationMs.p50)} minutes (median; 9 in 10 within {minutes(st.durationMs.p90)}), {Math.round(st.actions?.p50 ?? 0)} moves
          </li>
        )}
      </ul>
      {seats.length > 0 && (
        <table>
          <caption>Wins by seat, at {usual} players</caption>
          <thead>
            <tr>
              <th scope="col">seat</th>
              <th scope="col">games</th>
              <th scope="col">won</th>
            </tr>
          </thead>
          <tbody>
            {seats.map((p) => (
              <tr key={p.seat}>
                <td>{p.seat + 1}</td>
                <td>{String(p.games)}</td>
                <td>{Math.round(p.winRate * 100)} %</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

// Leaderboard is a game's ranking by rating (the ordinal), twenty at a time, and its figures.
export function Leaderboard({ game }: { game: string }) {
  const [lb, setLb] = useState<GetLeaderboardResponse | null>(null);
  const [err, setErr] = useState("");
  useEffect(() => {
    api.getLeaderboard({ game, pageSize: 20 }).then(setLb, (e) => setErr(errorText(e)));
  }, [game]);
  if (err) return <p role="alert" class="error">{err}</p>;
  if (!lb) return <p>Loading…</p>;
  return (
    <section aria-label="leaderboard">
      <h1>{gameName(game)}: leaderboard</h1>
      {lb.entries.length === 0 && <p>Nobody is rated yet.</p>}
      <ol>
        {lb.entries.map((e) => (
          <li key={String(e.rank)} value={Number(e.rank)}>
            {e.playerId ? <a href={`#/profile/${e.playerId}`}>{e.displayName}</a> : <i>a player</i>}{" "}
            <span title={e.rating ? `μ ${e.rating.mu.toFixed(2)}, σ ${e.rating.sigma.toFixed(2)}` : ""}>{e.rating?.ordinal.toFixed(1)}</span>
          </li>
        ))}
      </ol>
      <Figures game={game} />
    </section>
  );
}

// What each game is, in a paragraph, and its rules in short (docs/games has them in full).
export const gameAbout: Record<string, { about: string; rules: string }> = {
  sapotagem: {
    about:
      "A trick-taking game of secret agencies for 3 to 6 players: 52 cards in four colours, each card a member of one of six factions, and a clock bomb in every colour. What you win is scored by faction, so the tricks you take matter less than whom you take.",
    rules:
      "Each round every player either plays a card or spends a jump marker. Follow the lead colour when you can; the highest trump wins, else the highest card of the lead colour. After the last round each player's captured cards are scored by faction rows; each captured bomb costs 2, all four earn 10. Variants change the deal, the trumps and the scoring.",
  },
  sponsio: {
    about:
      "Betting on gladiator fights, for 3 or 4 players: 36 cards in four colours, values 1 to 9. Before the fights you bet on what will happen, take tokens and swap cards; then the tricks decide which bets pay.",
    rules:
      "Each round: eight cards each; four betting turns where you pass or open a card and bet on a coupon, take a token or change a card; then eight tricks (follow the colour, highest of the lead colour wins). Bets pay coins and move your counter; after a round a player on position 9 wins, else one with 30 coins or more, and after round 5 the most coins.",
  },
  sabaisabai: {
    about:
      "A fast card game for 2 to 12 players played in real time: you act whenever you can, not only on your turn. Keep your face-down cards' points low, remember what you peeked at, and be quick to throw and to touch your nose.",
    rules:
      "On your turn draw, then play the card or keep it in place of one of yours; at any moment throw a card identical to the one on top of the discard pile. Peek, spy, give and switch cards change what you know. A round ends when a row is empty or a turn after someone calls sabai-sabai: the fewest card points gain a victory point, the Ass Joker's holder loses one; most victory points wins.",
  },
  saboteur: {
    about:
      "Dwarves digging for gold, for 2 to 12 players (Saboteur 2; 3 to 10 in the classic game): some are gold diggers, some saboteurs, and nobody knows who is who. In Saboteur 2 the diggers split into a blue and a green team, with a boss, a profiteer and geologists.",
    rules:
      "On your turn play a path card on the board, an action card (break or mend a tool, look at a goal, cave in a path) or pass. Diggers want a tunnel from the start to the gold; saboteurs want the cards to run out first. Three rounds; nuggets go to the winning side; most nuggets wins.",
  },
};

// Games lists each game with what it is and its rules in short.
export function Games() {
  return (
    <section aria-label="the games">
      <h2>The games</h2>
      {Object.keys(gameNames).map((g) => (
        <details key={g} data-testid={`about-${g}`}>
          <summary>
            <b>{gameName(g)}</b>
          </summary>
          <p>{gameAbout[g].about}</p>
          <p>
            <i>Rules in short:</i> {gameAbout[g].rules}
          </p>
        </details>
      ))}
    </section>
  );
}
