// Sponsio's table: the coupons and tokens drawn as the board they are, the talon, the trick, every
// seat's public state, and the viewer's hand. A move is chosen in steps, by pointing at the things
// it uses: a card to lay face up, then what to do with it (bet on a coupon, take a token, change a
// card with the talon) or pass; an option on the coupon; an opponent; a card to play. No step
// offers more than a handful of choices.
import { useEffect, useMemo, useState } from "preact/hooks";
import { Card, Cards, cardKey, type Legal } from "../cards";
import type { PlainObj } from "../plain";
import { Fact, has, list, num, type PaneProps } from "./common";

export const roman = (n: number) =>
  ["", "I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII", "XIII", "XIV", "XV", "XVI"][n] ?? String(n);

const couponKind: Record<string, string> = {
  "colour count": "cards of its colour in your tricks",
  tricks: "tricks you take",
  "most tricks": "the most tricks",
  "last trick": "the last trick",
  nines: "your 9s",
  "counter bet": "counter-bet: an opponent loses a bet",
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

const tokens: [string, string, string][] = [
  ["combat", "Combat", "1 coin: lay a card under it and lead the first trick with it"],
  ["doubling", "Doubling", "1 more open card: one later bet may be double"],
  ["changing", "Changing", "1 coin: change the option of one of your bets"],
  ["three coin", "3-Coin", "1 more open card: 3 of your coins count as won this round"],
];
const tokenName = (t: string) => tokens.find(([k]) => k === t)?.[1] ?? t;

const span = (min: number, max: number) => (min === max ? `exactly ${min}` : `${min}–${max}`);
const plural = (n: number, one: string, many: string) => (n === 1 ? one : many);

// optionWords says a coupon's option as a bet: "exactly 2 tricks", "1–3 green cards", "win the
// last trick".
export function optionWords(c: PlainObj | undefined, o: PlainObj | undefined): string {
  if (!c || !o) return "an option";
  const min = num(o.min),
    max = num(o.max);
  switch (String(c.kind)) {
    case "colour count": {
      const col = String(c.colour);
      if (max === 0) return `no ${col} card`;
      return `${span(min, max)} ${col} ${plural(max, "card", "cards")}`;
    }
    case "tricks":
      if (max === 0) return "no trick";
      return `${span(min, max)} ${plural(max, "trick", "tricks")}`;
    case "most tricks":
      return min >= 1 ? "the most tricks" : "not the most tricks";
    case "last trick":
      return min >= 1 ? "win the last trick" : "not win the last trick";
    case "nines":
      return min === 0 ? "no 9 played" : min === 1 ? "every 9 played takes its trick" : "a 9 played loses its trick";
    case "counter bet":
      return "the opponent loses a bet";
  }
  return `${span(min, max)}`;
}

const odds = (o: PlainObj | undefined) => (o ? ` ×${num(o.odds)}` : "");

// betWords says a bet in words from the table's coupons: "exactly 2 tricks ×5 (coupon V)".
export function betWords(coupons: Map<number, PlainObj>, coupon: number, option: number | undefined): string {
  const c = coupons.get(coupon);
  const o = option === undefined ? undefined : list(c?.options)[option];
  return `${o ? optionWords(c, o) + odds(o) : "an option still to mark"} (coupon ${roman(coupon)})`;
}

function BetText({ b, coupons, name }: { b: PlainObj; coupons: Map<number, PlainObj>; name: (n: number) => string }) {
  return (
    <span class={`bet ${b.result === "won" ? "won" : b.result === "lost" ? "lost" : ""}`}>
      {betWords(coupons, num(b.coupon), typeof b.option === "number" ? b.option : undefined)}
      {b.double ? ", double" : ""}
      {typeof b.target === "number" ? `, against ${name(b.target)}` : ""}
      {b.result === "won" ? `: won ${num(b.coinsWon)}` : b.result === "lost" ? ": lost" : ""}
    </span>
  );
}

// The step a betting turn is at: the card chosen to lay face up, what to do with it, the talon card
// chosen for a change.
interface Step {
  card: string | null;
  what: "bet" | "token" | "change" | null;
  talon: string | null;
}
const start: Step = { card: null, what: null, talon: null };

const openOf = (l: Legal) => l.plain.openCard as PlainObj | undefined;
const cardOf = (p: PlainObj | undefined, k = "card") => (p && p[k] ? cardKey(p[k] as PlainObj) : null);

export function SponsioPane({ view: v, name, legal, pick, choose, act }: PaneProps) {
  const seats = list(v.seats);
  const viewer = num(v.viewer);
  const coupons = useMemo(() => new Map(list(v.coupons).map((c) => [num(c.number), c])), [v]);
  const free = new Set(list(v.freeCoupons).map(Number));
  const takenBy = new Map<number, [number, PlainObj]>();
  for (const s of seats) for (const b of list(s.bets)) takenBy.set(num(b.coupon), [num(s.seat), b]);
  const tokenHolder = new Map<string, number>();
  for (const s of seats) for (const t of list(s.tokens)) tokenHolder.set(String(t), num(s.seat));
  const freeTokens = new Set(list(v.freeTokens).map(String));
  const counter = list(v.counterValues).map(Number);
  const me = seats.find((s) => num(s.seat) === viewer);
  const trick = list(v.currentTrick);
  const decision = String(v.decision);

  const [step, setStep] = useState<Step>(start);
  useEffect(() => setStep(start), [legal]);
  const doAct = (l: Legal) => (act ? act(l) : undefined);

  // The betting turn's moves, narrowed by the step.
  const opens = legal.filter((l) => openOf(l));
  const ofCard = step.card ? opens.filter((l) => cardOf(openOf(l)) === step.card) : [];
  const bets = ofCard.filter((l) => openOf(l)!.placeBet);
  const takes = ofCard.filter((l) => openOf(l)!.takeToken);
  const changes = ofCard.filter((l) => openOf(l)!.changeCard);
  const betOn = (n: number) => bets.filter((l) => num((openOf(l)!.placeBet as PlainObj).coupon) === n);
  const takeOf = (t: string) => takes.find((l) => String((openOf(l)!.takeToken as PlainObj).token) === t);
  const changeTalon = (k: string) => changes.filter((l) => cardOf(openOf(l)!.changeCard as PlainObj, "talonCard") === k);
  const options = legal.filter((l) => l.plain.chooseOption);
  const changeBets = legal.filter((l) => l.plain.changeBet);
  const optionMove = (coupon: number, i: number) =>
    decision === "option" && num(v.pendingCoupon) === coupon
      ? options.find((l) => num((l.plain.chooseOption as PlainObj).option) === i)
      : changeBets.find((l) => num((l.plain.changeBet as PlainObj).coupon) === coupon && num((l.plain.changeBet as PlainObj).option) === i);

  // The hand: which card a click stands for at this step.
  const handMove = (c: PlainObj): (() => void) | undefined => {
    const k = cardKey(c);
    if (opens.length > 0) {
      if (step.what === "change" && step.talon) {
        const l = changeTalon(step.talon).find((l) => cardOf(openOf(l)!.changeCard as PlainObj, "handCard") === k);
        return l && (() => doAct(l));
      }
      if (opens.some((l) => cardOf(openOf(l)) === k)) return () => setStep(step.card === k ? start : { card: k, what: null, talon: null });
      return undefined;
    }
    const uses = legal.filter((l) => cardOf(l.plain.layCard as PlainObj) === k || cardOf(l.plain.playCard as PlainObj) === k);
    if (uses.length === 1) return () => doAct(uses[0]);
    if (uses.length > 1) return () => choose("card:" + k);
    return undefined;
  };
  const handLabel = opens.length > 0 && !(step.what === "change" && step.talon) ? "lay face up" : step.what === "change" ? "give to the talon" : decision === "play" ? "play" : "lay";

  // What the dock says and offers at this step.
  const choices: { text: string; run: () => void; testid?: string; back?: boolean }[] = [];
  let prompt = "";
  if (legal.length > 0) {
    if (opens.length > 0 || legal.some((l) => l.plain.pass)) {
      const pass = legal.find((l) => l.plain.pass);
      if (!step.card) {
        prompt = opens.length ? "Your turn: choose a card of your hand to lay face up, or pass." : "Your turn: pass.";
        if (pass) choices.push({ text: "Pass", run: () => doAct(pass) });
      } else {
        const card = step.card;
        if (!step.what) {
          prompt = `With ${card} face up:`;
          if (bets.length) choices.push({ text: "Bet on a coupon", run: () => setStep({ card, what: "bet", talon: null }) });
          if (takes.length) choices.push({ text: "Take a token", run: () => setStep({ card, what: "token", talon: null }) });
          if (changes.length) choices.push({ text: "Change a card with the talon", run: () => setStep({ card, what: "change", talon: null }) });
        } else if (step.what === "bet") {
          prompt = `With ${card} face up: click a free coupon to bet on it (1 coin, a double bet 2).`;
        } else if (step.what === "token") {
          prompt = `With ${card} face up: click a token to take it.`;
        } else if (!step.talon) {
          prompt = `With ${card} face up: click the talon card to take into your hand.`;
        } else {
          prompt = `Take ${step.talon} from the talon: click the card of your hand to give for it.`;
        }
        choices.push({ text: "Back", run: () => setStep(step.what ? { card, what: step.talon ? step.what : null, talon: null } : start), back: true });
      }
    } else if (decision === "option") {
      prompt = `Mark an option on coupon ${roman(num(v.pendingCoupon))}:`;
      for (const l of options) {
        const i = num((l.plain.chooseOption as PlainObj).option);
        const c = coupons.get(num(v.pendingCoupon));
        const o = list(c?.options)[i];
        choices.push({ text: `${optionWords(c, o)}${odds(o)}`, run: () => doAct(l) });
      }
    } else if (decision === "target") {
      prompt = "Name the opponent your counter-bet is against:";
      for (const l of legal.filter((l) => l.plain.chooseTarget)) {
        const s = num((l.plain.chooseTarget as PlainObj).seat);
        choices.push({ text: `against ${name(s)}`, run: () => doAct(l) });
      }
    } else if (decision === "change bet") {
      prompt = "Changing token: click a new option on one of your coupons, or keep your bets.";
      for (const l of changeBets) {
        const cb = l.plain.changeBet as PlainObj;
        const c = coupons.get(num(cb.coupon));
        const o = list(c?.options)[num(cb.option)];
        choices.push({ text: `coupon ${roman(num(cb.coupon))} to ${optionWords(c, o)}${odds(o)}`, run: () => doAct(l) });
      }
      const keep = legal.find((l) => l.plain.keepBet);
      if (keep) choices.push({ text: "Keep every bet", run: () => doAct(keep) });
    } else if (decision === "redeem") {
      prompt = `Your counter is worth ${counter[num(me?.marker)] ?? 0} coins:`;
      const r = legal.find((l) => l.plain.redeemCounter);
      const k = legal.find((l) => l.plain.keepCounter);
      if (r) choices.push({ text: "Redeem it", run: () => doAct(r) });
      if (k) choices.push({ text: "Keep it", run: () => doAct(k) });
    } else if (decision === "price card" || decision === "combat card") {
      prompt = decision === "combat card" ? "Click the card of your hand to lay under the Combat token." : `Click the card of your hand to lay face up as the ${tokenName(String(v.pendingToken))} token's price.`;
    } else if (decision === "play") {
      prompt = "Your trick: click a card of your hand or a face-up card to play it.";
    }
    // Anything else the table offers, in its own words.
    const known = (l: Legal) => ["pass", "openCard", "chooseOption", "chooseTarget", "changeBet", "keepBet", "redeemCounter", "keepCounter", "layCard", "playCard"].some((k) => k in l.plain);
    for (const l of legal.filter((l) => !known(l))) choices.push({ text: l.text, run: () => doAct(l) });
    if (pick) {
      for (const l of legal.filter((l) => pick === "card:" + (cardOf(l.plain.layCard as PlainObj) ?? cardOf(l.plain.playCard as PlainObj)))) choices.push({ text: l.text, run: () => doAct(l) });
    }
  }

  const cardsBoard = (cards: PlainObj[], title: string, testid: string) => (
    <div class="hand" data-testid={testid} role="group" aria-label={title.toLowerCase()}>
      <h3>{title}</h3>
      {cards.length === 0 && <span class="none">no card</span>}
      {cards.map((c, i) => {
        const run = handMove(c);
        const k = cardKey(c);
        return <Card key={i} c={c} hot={!!run || step.card === k || pick === "card:" + k} onClick={run} label={run ? handLabel : undefined} point />;
      })}
    </div>
  );

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
            {name(v.toAct)}: {decisionWords[decision] ?? decision}
            {num(v.pendingCoupon) > 0 && ` (coupon ${roman(num(v.pendingCoupon))})`}
            {has(v.pendingToken) && ` (${tokenName(String(v.pendingToken))} token${num(v.pendingCards) ? `, ${num(v.pendingCards)} card(s) to lay` : ""})`}
          </Fact>
        )}
        {has(v.removedColour) && <Fact k="colour out of the deck">{String(v.removedColour)}</Fact>}
        <Fact k="sequence counter">
          <span class="counter">
            {counter.map((c, i) => (
              <span key={i} class={`pos${seats.some((s) => num(s.marker) === i) ? " held" : ""}`} title={`position ${i}: worth ${c}`}>
                <b>{i}</b>
                <small>{c}</small>
              </span>
            ))}
          </span>
        </Fact>
      </dl>

      <div class="board" role="group" aria-label="the board">
        <div class="talon" role="group" aria-label="talon">
          <h3>Talon</h3>
          {list(v.talon).map((c, i) => {
            const k = cardKey(c);
            const can = step.what === "change" && changeTalon(k).length > 0;
            return (
              <Card
                key={i}
                c={c}
                hot={can || step.talon === k}
                onClick={can ? () => setStep({ ...step, talon: step.talon === k ? null : k }) : undefined}
                label={can ? "take from the talon" : undefined}
                point
              />
            );
          })}
          {v.combatCard ? (
            <span class="combat">
              <small>combat card</small> <Card c={v.combatCard as PlainObj} />
            </span>
          ) : null}
        </div>
        <div class="tokens" role="group" aria-label="tokens">
          <h3>Tokens</h3>
          {tokens.map(([k, label, price]) => {
            const l = step.what === "token" ? takeOf(k) : undefined;
            const holder = tokenHolder.get(k);
            const state = freeTokens.has(k) ? "free" : holder !== undefined ? `held by ${name(holder)}` : "taken";
            const body = (
              <>
                {l && <span class="sr">take the </span>}
                <b>{label}</b> <small>{state}</small>
                <span class="sr"> ({price})</span>
              </>
            );
            return l ? (
              <button key={k} class="token hot" data-point="" data-token={k} title={price} onClick={() => doAct(l)}>
                {body}
              </button>
            ) : (
              <span key={k} class={`token${freeTokens.has(k) ? "" : " gone"}`} data-token={k} title={price}>
                {body}
              </span>
            );
          })}
        </div>
        <div class="coupons" role="group" aria-label="coupons">
          <h3>Coupons</h3>
          <div class="coupon-grid">
            {[...coupons.values()].map((c) => {
              const n = num(c.number);
              const ls = step.what === "bet" ? betOn(n) : [];
              const single = ls.find((l) => !(openOf(l)!.placeBet as PlainObj).double);
              const dbl = ls.find((l) => (openOf(l)!.placeBet as PlainObj).double);
              const taken = takenBy.get(n);
              const mine = taken && taken[0] === viewer;
              const pending = decision === "option" && num(v.pendingCoupon) === n && legal.length > 0;
              return (
                <div
                  key={n}
                  class={`coupon k-${String(c.kind).replace(/\s/g, "-")} c-${String(c.colour).replace(/\s/g, "-")}${ls.length ? " hot" : ""}${pending ? " pending" : ""}${free.has(n) ? "" : " taken"}`}
                  data-coupon={n}
                >
                  <div class="chead">
                    <b class="num">{roman(n)}</b> {couponKind[String(c.kind)] ?? String(c.kind)}
                    {has(c.colour) && String(c.kind) === "colour count" && <span class="ccol"> · {String(c.colour)}</span>}
                  </div>
                  <ol class="opts">
                    {list(c.options).map((o, i) => {
                      const l = legal.length > 0 ? optionMove(n, i) : undefined;
                      const marked = taken && typeof taken[1].option === "number" && taken[1].option === i;
                      const text = `${optionWords(c, o)}${odds(o)}`;
                      return (
                        <li key={i} class={marked ? "marked" : ""}>
                          {l ? (
                            <button data-point="" onClick={() => doAct(l)} aria-label={`${pending ? "mark" : "change to"} ${text} on coupon ${roman(n)}`}>
                              {text}
                            </button>
                          ) : (
                            <span>
                              {text}
                              {marked && <span class="sr"> (marked)</span>}
                            </span>
                          )}
                        </li>
                      );
                    })}
                  </ol>
                  <div class="cfoot">
                    {free.has(n) ? "free" : taken ? `${mine ? "yours" : name(taken[0])}${taken[1].double ? ", double" : ""}` : "not in play"}
                    {taken && typeof taken[1].target === "number" && ` against ${name(taken[1].target)}`}
                  </div>
                  {single && (
                    <button class="betbtn" data-point="" onClick={() => doAct(single)} aria-label={`bet 1 coin on coupon ${roman(n)}`}>
                      bet 1 coin
                    </button>
                  )}
                  {dbl && (
                    <button class="betbtn" data-point="" onClick={() => doAct(dbl)} aria-label={`bet double, 2 coins, on coupon ${roman(n)}`}>
                      bet double
                    </button>
                  )}
                </div>
              );
            })}
          </div>
        </div>
      </div>

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

      <div class="scroll" tabIndex={0} role="region" aria-label="players">
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
                  {num(s.stakedCoins) > 0 && ` (+${num(s.stakedCoins)} on the 3-Coin token)`}
                  {num(s.coinsWon) > 0 && `, won ${num(s.coinsWon)} this round`}
                </td>
                <td>
                  {num(s.marker)} (worth {counter[num(s.marker)] ?? 0})
                </td>
                <td>
                  <Cards cards={list(s.openCards)} />
                </td>
                <td>{num(s.handSize)}</td>
                <td>{list(s.tokens).map((t) => tokenName(String(t))).join(", ") || "–"}</td>
                <td>
                  {list(s.bets).length === 0
                    ? "–"
                    : list(s.bets).map((b, i) => (
                        <div key={i}>
                          <BetText b={b} coupons={coupons} name={name} />
                        </div>
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
      </div>

      {me && (
        <div class="dock" data-testid="dock">
          {legal.length > 0 && (
            <div class="choices" role="group" aria-label="your choices">
              <p class="prompt" data-testid="prompt">
                {prompt}
              </p>
              {choices.map((c, i) => (
                <button key={i} data-testid="choice" data-point="" data-back={c.back ? "" : undefined} onClick={c.run}>
                  {c.text}
                </button>
              ))}
            </div>
          )}
          {cardsBoard(list(me.hand), "Your hand", "hand")}
          {list(me.openCards).length > 0 && cardsBoard(list(me.openCards), "Your face-up cards", "open")}
        </div>
      )}
    </div>
  );
}

// sponsioEventWords says the bet events in words from the table's coupons ("Bo bets on exactly 2
// tricks ×5 (coupon V)"), which the engine's labels cannot (an event does not carry the coupons);
// null for the others.
export function sponsioEventWords(p: PlainObj, name: (n: number) => string, coupons: Map<number, PlainObj>): string | null {
  const m = p.betMarked as PlainObj | undefined;
  if (m) {
    const target = typeof m.target === "number" ? `, against ${name(m.target)}` : "";
    return `${name(num(m.seat))} bets on ${betWords(coupons, num(m.coupon), num(m.option))}${target}`;
  }
  const c = p.betChanged as PlainObj | undefined;
  if (c) {
    if (!c.changed) return `${name(num(c.seat))} keeps every bet`;
    return `${name(num(c.seat))} changes a bet to ${betWords(coupons, num(c.coupon), num(c.option))}`;
  }
  return null;
}

