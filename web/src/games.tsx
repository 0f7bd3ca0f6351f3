// Sapotagem's and Sponsio's tables: the round, the trump or the coupons, the cards on the table,
// every seat's public state and the viewer's own hand, whose cards are the moves that use them.
import { Card, Cards, Hand, type Choose, type Legal } from "./cards";
import type { PlainObj } from "./plain";
import { variantNames } from "./create";

export interface PaneProps {
  view: PlainObj;
  name: (n: number) => string;
  legal: Legal[];
  pick: string | null;
  choose: Choose;
}

const list = (v: unknown) => (Array.isArray(v) ? (v as PlainObj[]) : []);
const num = (v: unknown) => (typeof v === "number" ? v : 0);
const has = (v: unknown) => v !== undefined && v !== null && v !== "" && v !== "unspecified";

function Fact({ k, children }: { k: string; children: any }) {
  return (
    <div>
      <dt>{k}</dt>
      <dd>{children}</dd>
    </div>
  );
}

// ---- Sapotagem ----

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

export function SapotagemPane({ view: v, name, legal, pick, choose }: PaneProps) {
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
      {piles.map(([title, cards]) => (
        <p key={title}>
          <b>{title}</b>: <Cards cards={cards} />
        </p>
      ))}
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
      {viewer >= 0 && <Hand cards={list(v.hand)} legal={legal} choose={choose} pick={pick} />}
    </div>
  );
}

// ---- Sponsio ----

const roman = (n: number) => ["", "I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII", "XIII", "XIV", "XV", "XVI"][n] ?? String(n);

const couponKind: Record<string, string> = {
  "colour count": "cards of its colour in your tricks",
  tricks: "tricks you take",
  "most tricks": "1 if you take the most tricks",
  "last trick": "1 if you take the last trick",
  nines: "your 9s: 0 none played, 1 all won, 2 one lost",
  "counter bet": "1 if the chosen opponent loses a bet",
};

const decisionWords: Record<string, string> = {
  turn: "a betting turn: pass, or lay a card face up and bet, take a token or change a card",
  option: "mark an option on the coupon just taken",
  target: "name the counter-bet's opponent",
  "price card": "lay a card face up as the token's price",
  "combat card": "lay a card face up under the Combat token",
  "change bet": "change a bet with the Changing token, or keep",
  play: "play a card to the trick",
  redeem: "redeem the sequence counter or keep it",
};

function BetText({ b, coupons, name }: { b: PlainObj; coupons: Map<number, PlainObj>; name: (n: number) => string }) {
  const c = coupons.get(num(b.coupon));
  const opt = typeof b.option === "number" ? list(c?.options)[b.option] : undefined;
  return (
    <span class={`bet ${b.result === "won" ? "won" : b.result === "lost" ? "lost" : ""}`}>
      {roman(num(b.coupon))}
      {opt ? ` ${num(opt.min)}–${num(opt.max)} ×${num(opt.odds)}` : typeof b.option === "number" ? "" : " (option to choose)"}
      {b.double ? " double" : ""}
      {typeof b.target === "number" ? ` on ${name(b.target)}` : ""}
      {b.result === "won" ? ` won ${num(b.coinsWon)}` : b.result === "lost" ? " lost" : ""}
    </span>
  );
}

export function SponsioPane({ view: v, name, legal, pick, choose }: PaneProps) {
  const seats = list(v.seats);
  const viewer = num(v.viewer);
  const coupons = new Map(list(v.coupons).map((c) => [num(c.number), c]));
  const free = new Set(list(v.freeCoupons).map(Number));
  const takenBy = new Map<number, number>();
  for (const s of seats) for (const b of list(s.bets)) takenBy.set(num(b.coupon), num(s.seat));
  const counter = list(v.counterValues).map(Number);
  const me = seats.find((s) => num(s.seat) === viewer);
  const trick = list(v.currentTrick);
  return (
    <div class="game sponsio" data-testid="game">
      <dl class="facts">
        <Fact k="round">
          <span data-testid="round">{num(v.round)} of 5</span>, dealer {name(num(v.dealer))}
        </Fact>
        <Fact k="phase">
          {String(v.phase)}
          {v.phase === "betting" && ` (turn ${num(v.bettingTurn) + 1} of ${4 * num(v.players)})`}
          {v.phase === "tricks" && ` (trick ${num(v.trick)} of 8, led by ${name(num(v.leader))})`}
        </Fact>
        {typeof v.toAct === "number" && (
          <Fact k="now">
            {name(v.toAct)}: {decisionWords[String(v.decision)] ?? String(v.decision)}
            {num(v.pendingCoupon) > 0 && ` (coupon ${roman(num(v.pendingCoupon))})`}
            {has(v.pendingToken) && ` (${v.pendingToken} token${num(v.pendingCards) ? `, ${num(v.pendingCards)} card(s) to lay` : ""})`}
          </Fact>
        )}
        {has(v.removedColour) && <Fact k="colour out of the deck">{String(v.removedColour)}</Fact>}
        <Fact k="talon">
          <Cards cards={list(v.talon)} />
        </Fact>
        {v.combatCard ? (
          <Fact k="combat card">
            <Card c={v.combatCard as PlainObj} />
          </Fact>
        ) : null}
        <Fact k="tokens left">{list(v.freeTokens).map(String).join(", ") || "none"}</Fact>
        <Fact k="sequence counter">{counter.map((c, i) => `${i}: ${c}`).join(" · ")}</Fact>
      </dl>
      {trick.length > 0 && (
        <div class="trick" role="group" aria-label="the trick">
          <h3>The trick</h3>
          {trick.map((p, i) => (
            <span class="played" key={i}>
              <Card c={p.card as PlainObj} />
              <small>{name(num(p.seat))}</small>
            </span>
          ))}
        </div>
      )}
      <table class="coupons">
        <caption>Coupons</caption>
        <thead>
          <tr>
            <th scope="col">coupon</th>
            <th scope="col">bets on</th>
            <th scope="col">options (from–to ×odds)</th>
            <th scope="col">taken by</th>
          </tr>
        </thead>
        <tbody>
          {[...coupons.values()].map((c) => {
            const n = num(c.number);
            const key = "coupon:" + n;
            const usable = legal.some((l) => (l.plain.openCard as PlainObj | undefined)?.placeBet && (((l.plain.openCard as PlainObj).placeBet as PlainObj).coupon ?? 0) === n);
            return (
              <tr key={n} data-coupon={n} class={pick === key ? "picked" : ""}>
                <th scope="row">
                  {usable ? (
                    <button onClick={() => choose(key)} aria-label={`bet on coupon ${roman(n)}`}>
                      {roman(n)}
                    </button>
                  ) : (
                    roman(n)
                  )}
                </th>
                <td>
                  {couponKind[String(c.kind)] ?? String(c.kind)}
                  {has(c.colour) && `: ${c.colour}`}
                </td>
                <td>{list(c.options).map((o) => `${num(o.min)}–${num(o.max)} ×${num(o.odds)}`).join(" · ")}</td>
                <td>{free.has(n) ? "free" : takenBy.has(n) ? name(takenBy.get(n)!) : "–"}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <table class="seatstate">
        <caption>Players</caption>
        <thead>
          <tr>
            <th scope="col">player</th>
            <th scope="col">coins</th>
            <th scope="col">counter</th>
            <th scope="col">cards face up</th>
            <th scope="col">in hand</th>
            <th scope="col">tokens</th>
            <th scope="col">bets</th>
            <th scope="col">tricks</th>
          </tr>
        </thead>
        <tbody>
          {seats.map((s) => (
            <tr key={num(s.seat)} data-seat={num(s.seat)} class={v.toAct === s.seat ? "turn" : ""}>
              <th scope="row">
                {name(num(s.seat))}
                {v.toAct === s.seat && <small> · to play</small>}
                {s.winner ? " 🏆 winner" : ""}
                {s.troll ? <small> (troll: no bet)</small> : null}
              </th>
              <td>
                {num(s.coins)}
                {num(s.stakedCoins) > 0 && ` (+${num(s.stakedCoins)} on the 3-coin token)`}
                {num(s.coinsWon) > 0 && `, won ${num(s.coinsWon)} this round`}
              </td>
              <td>
                {num(s.marker)} (worth {counter[num(s.marker)] ?? 0})
              </td>
              <td>
                <Cards cards={list(s.openCards)} />
              </td>
              <td>{num(s.handSize)}</td>
              <td>{list(s.tokens).map(String).join(", ") || "–"}</td>
              <td>
                {list(s.bets).length === 0
                  ? "–"
                  : list(s.bets).map((b, i) => (
                      <span key={i}>
                        {i > 0 && ", "}
                        <BetText b={b} coupons={coupons} name={name} />
                      </span>
                    ))}
              </td>
              <td>
                {num(s.tricks)}
                {list(s.capturedNines).length > 0 && (
                  <>
                    {" "}
                    <Cards cards={list(s.capturedNines)} />
                  </>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {me && <Hand cards={list(me.hand)} legal={legal} choose={choose} pick={pick} />}
      {me && list(me.openCards).length > 0 && <Hand cards={list(me.openCards)} legal={legal} choose={choose} pick={pick} title="Your face-up cards" testid="open" />}
    </div>
  );
}
