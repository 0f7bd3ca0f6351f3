// Cards drawn as cards (colour and rank written on them, never colour alone, with a text
// alternative), and the legal moves a card, a board cell or a coupon stands for.
import type { Any } from "@bufbuild/protobuf/wkt";
import { cardWords, isCard, type Plain, type PlainObj } from "./plain";

// Legal is one legal action: the packed message, its plain tree and its words.
export type Legal = { action: Any; plain: PlainObj; text: string };

// A card; with onClick a button (point marks it as a control a player points at, data-point).
export function Card({ c, onClick, hot, label, point }: { c: PlainObj; onClick?: () => void; hot?: boolean; label?: string; point?: boolean }) {
  const words = cardWords(c);
  const n = String(c.rank ?? c.value);
  const cls = `card c-${String(c.colour).replace(/\s/g, "-")}${hot ? " hot" : ""}`;
  // The colour first in the text ("yellow 1", as the card's words say it), drawn under the rank.
  const body = (
    <>
      <span class="suit">{String(c.colour)}</span> <span class="rank">{n}</span>
    </>
  );
  if (onClick)
    return (
      <button class={cls} aria-label={label ? `${label}: ${words}` : words} title={words} onClick={onClick} data-card={cardKey(c)} data-point={point ? "" : undefined}>
        {body}
      </button>
    );
  return (
    <span class={cls} role="img" aria-label={words} title={words} data-card={cardKey(c)}>
      {body}
    </span>
  );
}

export function cardKey(c: PlainObj): string {
  return `${c.colour} ${c.rank ?? c.value}`;
}

// cardsIn is every card an action names (its own, a talon card, a bomb…).
export function cardsIn(p: Plain, out: PlainObj[] = []): PlainObj[] {
  if (isCard(p)) out.push(p);
  else if (p && typeof p === "object") for (const v of Object.values(p)) cardsIn(v, out);
  return out;
}

export function cellOf(p: PlainObj): string | null {
  const place = p.place as PlainObj | undefined;
  const cell = (place?.cell ?? null) as PlainObj | null;
  return cell ? `${cell.x ?? 0},${cell.y ?? 0}` : null;
}

function couponOf(p: PlainObj): number | null {
  const o = p.openCard as PlainObj | undefined;
  const b = (o?.placeBet ?? p.changeBet) as PlainObj | undefined;
  return b && typeof b.coupon === "number" ? b.coupon : null;
}

// A pick narrows the move list: "cell:x,y" (a Saboteur board cell), "card:<colour> <rank>" (a
// card of the hand), "coupon:<n>" (a Sponsio coupon).
export function matches(l: Legal, pick: string | null): boolean {
  if (!pick) return true;
  const [kind, key] = [pick.slice(0, pick.indexOf(":")), pick.slice(pick.indexOf(":") + 1)];
  if (kind === "cell") return cellOf(l.plain) === key;
  if (kind === "card") return cardsIn(l.plain).some((c) => cardKey(c) === key);
  if (kind === "coupon") return String(couponOf(l.plain)) === key;
  return true;
}

// Choose is what a click on a card, cell or coupon does: the move itself when only one legal move
// matches, else the moves narrowed to it (a second click widens them again).
export type Choose = (pick: string) => void;

export function chooser(legal: Legal[], pick: string | null, setPick: (p: string | null) => void, act: (l: Legal) => void): Choose {
  return (p) => {
    if (pick === p) return setPick(null);
    const m = legal.filter((l) => matches(l, p));
    if (m.length === 1) act(m[0]);
    else if (m.length > 1) setPick(p);
  };
}

// Hand draws cards of the viewer's own hand; a card some legal move names is a button.
export function Hand(props: { cards: PlainObj[]; legal: Legal[]; choose: Choose; pick: string | null; title?: string; testid?: string }) {
  const { cards, legal, choose, pick, title = "Your hand", testid = "hand" } = props;
  return (
    <div class="hand" data-testid={testid} role="group" aria-label={title.toLowerCase()}>
      <h3>{title}</h3>
      {cards.length === 0 && <span class="none">no card</span>}
      {cards.map((c, i) => {
        const key = "card:" + cardKey(c);
        const usable = legal.some((l) => matches(l, key));
        return <Card key={i} c={c} hot={usable || pick === key} onClick={usable ? () => choose(key) : undefined} label={usable ? "play" : undefined} point />;
      })}
    </div>
  );
}

export function Cards({ cards, none = "none" }: { cards: PlainObj[] | undefined; none?: string }) {
  if (!cards || cards.length === 0) return <span class="none">{none}</span>;
  return (
    <span class="cards">
      {cards.map((c, i) => (
        <Card key={i} c={c} />
      ))}
    </span>
  );
}

// Choices shows, as buttons a player points at, the moves a pick narrowed the list to (a card some
// moves use) and the moves no card stands for (a jump): with the list collapsed, these are the
// moves the table offers beside the cards.
export function Choices({ legal, pick, act, uses }: { legal: Legal[]; pick: string | null; act: (l: Legal) => void; uses: (l: Legal) => boolean }) {
  const narrowed = pick ? legal.filter((l) => matches(l, pick)) : [];
  const free = legal.filter((l) => !uses(l));
  if (narrowed.length === 0 && free.length === 0) return null;
  return (
    <div class="choices" role="group" aria-label="your choices">
      {narrowed.length > 0 && <p class="prompt">Which move with this card?</p>}
      {[...narrowed, ...(pick ? [] : free)].map((l, i) => (
        <button key={i} data-testid="choice" data-point="" onClick={() => act(l)}>
          {l.text}
        </button>
      ))}
    </div>
  );
}
