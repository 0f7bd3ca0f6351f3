// Sapotagem's table: the round and its trump, the cards played this round with who played them,
// the trump of every round so far and who won it, the variants' piles, every seat's public state
// and the viewer's own hand, whose cards are the moves that use them.
import { Card, Cards, Choices, Hand, cardKey, cardsIn } from "../cards";
import type { PlainObj } from "../plain";
import { Fact, has, list, num, type PaneProps } from "./common";
import { variantNames } from "../create";

const sapotagemPhase: Record<string, string> = {
  sleeve: "every seat chooses its sleeve card",
  play: "jump or play a card",
  pick: "the round's winner picks a face-up card",
  help: "take a card from the discard pile",
  "take back": "the winner may take a won card back",
  "choose trump": "choose the next trump colour",
  "hidden pick": "take a card from the closed pile",
  over: "the game is over",
};

export function SapotagemPane({ view: v, name, legal, pick, choose, act, history }: PaneProps) {
  const rounds_ = trumpHistory(history ?? []);
  const seats = list(v.seats);
  const viewer = num(v.viewer);
  const rounds = num(v.rounds);
  const table = list(v.table);
  const piles: [string, PlainObj[]][] = (
    [
      ["face-up trump pile", list(v.openPile)],
      ["fugitives", list(v.fugitives)],
      ["discard pile", list(v.discard)],
      ["revealed pile", list(v.revealed)],
      ["trump deck", list(v.trumpDeck)],
      ["closed pile", list(v.hidden)],
    ] as [string, PlainObj[]][]
  ).filter(([, c]) => c.length > 0);
  return (
    <div class="game sapotagem" data-testid="game">
      <dl class="facts">
        <Fact k="round">
          <span data-testid="round">{rounds ? `${num(v.round)} of ${rounds}` : num(v.round)}</span>
        </Fact>
        <Fact k="now">{sapotagemPhase[String(v.phase)] ?? String(v.phase)}</Fact>
        <Fact k="variants">
          <span data-testid="variants">{variantNames(v.options as PlainObj | undefined)}</span>
        </Fact>
        <Fact k="trump">
          <span data-testid="trump">{has(v.trump) ? String(v.trump) : "no trump this round"}</span>
          {v.trumpCard ? <Card c={v.trumpCard as PlainObj} /> : null}
        </Fact>
        {v.nextTrump ? (
          <Fact k="next trump">
            <Card c={v.nextTrump as PlainObj} />
          </Fact>
        ) : null}
        <Fact k="colour to follow">{has(v.lead) ? String(v.lead) : "none yet"}</Fact>
        <Fact k="trump pile">{num(v.pileSize)} face down</Fact>
        {typeof v.lastWinner === "number" && <Fact k="last round won by">{name(v.lastWinner)}</Fact>}
      </dl>
      <div class="trick" role="group" aria-label="cards played this round">
        <h3>This round</h3>
        {table.length === 0 && <span class="none">no card played yet</span>}
        {table.map((p, i) => (
          <span class="played" key={i}>
            <Card c={p.card as PlainObj} />
            <small>
              {name(num(p.seat))}
              {num(p.owner) !== num(p.seat) && ` for ${name(num(p.owner))}`}
              {p.remote ? " (remote bomb)" : ""}
              {p.fromArea ? " (from the play area)" : ""}
            </small>
          </span>
        ))}
      </div>
      <RoundHistory rows={rounds_} name={name} />
      {piles.map(([title, cards]) => (
        <p key={title}>
          <b>{title}</b>: <Cards cards={cards} />
        </p>
      ))}
      <div class="scroll" tabIndex={0} role="region" aria-label="players">
      <table class="seatstate">
        <caption>Players</caption>
        <thead>
          <tr>
            <th scope="col">player</th>
            <th scope="col">cards in hand</th>
            <th scope="col">jump markers</th>
            <th scope="col">play area</th>
            <th scope="col">known not to hold</th>
            <th scope="col">score</th>
          </tr>
        </thead>
        <tbody>
          {seats.map((s) => (
            <tr key={num(s.seat)} data-seat={num(s.seat)} class={v.turn === s.seat ? "turn" : ""}>
              <th scope="row">
                {name(num(s.seat))}
                {num(s.team) !== num(s.seat) && <small> (team {num(s.team) + 1})</small>}
                {v.turn === s.seat && <small> · to play</small>}
              </th>
              <td>{num(s.handSize)}</td>
              <td>
                {num(s.jumpMarkers)} left{num(s.jumpsUsed) > 0 && `, ${num(s.jumpsUsed)} used`}
              </td>
              <td>
                <Cards cards={list(s.area)} />
              </td>
              <td>{list(s.voidColours).map(String).join(", ") || "–"}</td>
              <td>{v.phase === "over" ? String(s.score ?? 0) : "–"}</td>
            </tr>
          ))}
        </tbody>
      </table>
      </div>
      {viewer >= 0 && (
        <div class="dock" data-testid="dock">
          {legal.length > 0 && !pick && (
            <p class="prompt" data-testid="prompt">
              Your move: click a lit card of your hand{legal.some((l) => !cardsIn(l.plain).length) ? ", or a choice below" : ""}.
            </p>
          )}
          {act && <Choices legal={legal} pick={pick} act={act} uses={(l) => cardsIn(l.plain).some((c) => list(v.hand).some((h) => cardKey(h) === cardKey(c)))} />}
          <Hand cards={list(v.hand)} legal={legal} choose={choose} pick={pick} />
        </div>
      )}
    </div>
  );
}


interface RoundRow {
  round: number;
  trump: string;
  trumpCard?: PlainObj;
  chosenBy?: number;
  winner?: number;
  winningCard?: PlainObj;
  captured: PlainObj[];
  over: boolean;
}

// trumpHistory is every round so far from the events: its trump (colour and card, or who chose
// it), and once it ended who won it with which card.
export function trumpHistory(events: PlainObj[]): RoundRow[] {
  const rows: RoundRow[] = [];
  let chosen: { seat?: number; colour: string } | null = null;
  for (const e of events) {
    const rs = e.roundStarted as PlainObj | undefined;
    const tc = e.trumpChosen as PlainObj | undefined;
    const re = e.roundEnded as PlainObj | undefined;
    if (tc) chosen = { seat: typeof tc.seat === "number" ? tc.seat : undefined, colour: String(tc.colour) };
    if (rs) {
      rows.push({
        round: num(rs.round),
        trump: has(rs.trump) ? String(rs.trump) : chosen?.colour ?? "none",
        trumpCard: (rs.trumpCard as PlainObj) ?? undefined,
        chosenBy: chosen?.seat,
        captured: [],
        over: false,
      });
      chosen = null;
    }
    if (re) {
      const r = rows.find((x) => x.round === num(re.round)) ?? rows[rows.length - 1];
      if (r) {
        r.over = true;
        r.winner = typeof re.winner === "number" ? re.winner : undefined;
        r.winningCard = (re.winningCard as PlainObj) ?? undefined;
        r.captured = list(re.captured);
      }
    }
  }
  return rows;
}

function RoundHistory({ rows, name }: { rows: RoundRow[]; name: (n: number) => string }) {
  if (rows.length === 0) return null;
  return (
    <div class="scroll" tabIndex={0} role="region" aria-label="rounds so far">
      <table class="history" data-testid="trump-history">
        <caption>Trumps and rounds so far</caption>
        <thead>
          <tr>
            <th scope="col">round</th>
            <th scope="col">trump</th>
            <th scope="col">won by</th>
          </tr>
        </thead>
        <tbody>
          {[...rows].reverse().map((r) => (
            <tr key={r.round} data-round={r.round}>
              <th scope="row">{r.round}</th>
              <td>
                {r.trump}
                {r.trumpCard && <Card c={r.trumpCard} />}
                {r.chosenBy !== undefined && <small> (chosen by {name(r.chosenBy)})</small>}
              </td>
              <td>
                {!r.over ? (
                  <span class="none">being played</span>
                ) : r.winner === undefined ? (
                  "nobody (no card could win)"
                ) : (
                  <>
                    {name(r.winner)}
                    {r.winningCard && (
                      <>
                        {" "}
                        with <Card c={r.winningCard} />
                      </>
                    )}
                  </>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
