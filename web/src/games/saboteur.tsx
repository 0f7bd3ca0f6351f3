// Saboteur's table, read from the typed view: the maze drawn as tiles (SVG) in the rules'
// orientation (x grows east, y grows south: the cell (0, 1) lies directly south of the start), with
// pan and zoom; every seat's role, team, nuggets and broken tools; the hand as tiles. A move is
// made by pointing: pick a card, turn it (button or `r`), click a highlighted cell, or click the
// seat or board card an action card targets.
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { anyUnpack, type Any } from "@bufbuild/protobuf/wkt";
import { ActionSchema, Card, Phase, Role, Tool, ViewSchema, type Action, type View } from "@cardroom/client/gen/cardroom/saboteur/v1/saboteur_pb";
import type { Legal } from "../cards";

const N = 1,
  E = 2,
  S = 4,
  W = 8,
  X = 15;

// A card's picture: its tunnels (each a set of open edges joined inside the card; a dead end has
// one segment per edge), and what it shows besides (docs/games/saboteur.md, "Card tables").
type Def = { name: string; segs?: number[]; ladder?: boolean; door?: "blue" | "green"; crystal?: boolean };

const defs: Record<number, Def> = {
  [Card.STRAIGHT_NS]: { name: "straight N-S", segs: [N | S] },
  [Card.STRAIGHT_EW]: { name: "straight E-W", segs: [E | W] },
  [Card.CROSSROADS]: { name: "crossroads", segs: [X] },
  [Card.T_NS_E]: { name: "T N-S-E", segs: [N | S | E] },
  [Card.T_EW_N]: { name: "T N-E-W", segs: [E | W | N] },
  [Card.CURVE_NW]: { name: "curve N-W", segs: [N | W] },
  [Card.CURVE_NE]: { name: "curve N-E", segs: [N | E] },
  [Card.DEAD_N]: { name: "dead end N", segs: [N] },
  [Card.DEAD_E]: { name: "dead end E", segs: [E] },
  [Card.DEAD_NS]: { name: "dead end N+S", segs: [N, S] },
  [Card.DEAD_EW]: { name: "dead end E+W", segs: [E, W] },
  [Card.DEAD_NW]: { name: "dead end N+W", segs: [N, W] },
  [Card.DEAD_NE]: { name: "dead end N+E", segs: [N, E] },
  [Card.DEAD_NSE]: { name: "dead end N+E+S", segs: [N, S, E] },
  [Card.DEAD_EWN]: { name: "dead end N+E+W", segs: [E, W, N] },
  [Card.DEAD_NESW]: { name: "dead end N+E+S+W", segs: [N, E, S, W] },
  [Card.BRIDGE]: { name: "bridge N-S+E-W", segs: [N | S, E | W] },
  [Card.DOUBLE_CURVE_NW_SE]: { name: "double curve N-W+E-S", segs: [N | W, S | E] },
  [Card.DOUBLE_CURVE_NE_SW]: { name: "double curve N-E+S-W", segs: [N | E, S | W] },
  [Card.LADDER_CROSSROADS]: { name: "ladder crossroads", segs: [X], ladder: true },
  [Card.LADDER_EW]: { name: "ladder E-W", segs: [E | W], ladder: true },
  [Card.LADDER_T_EW_N]: { name: "ladder T N-E-W", segs: [E | W | N], ladder: true },
  [Card.LADDER_DEAD_E]: { name: "ladder dead end E", segs: [E], ladder: true },
  [Card.DOOR_BLUE_EW]: { name: "blue door E-W", segs: [E | W], door: "blue" },
  [Card.DOOR_BLUE_T_EW_N]: { name: "blue door T N-E-W", segs: [E | W | N], door: "blue" },
  [Card.DOOR_BLUE_CROSSROADS]: { name: "blue door crossroads", segs: [X], door: "blue" },
  [Card.DOOR_GREEN_EW]: { name: "green door E-W", segs: [E | W], door: "green" },
  [Card.DOOR_GREEN_T_EW_N]: { name: "green door T N-E-W", segs: [E | W | N], door: "green" },
  [Card.DOOR_GREEN_CROSSROADS]: { name: "green door crossroads", segs: [X], door: "green" },
  [Card.CRYSTAL_EW]: { name: "crystal E-W", segs: [E | W], crystal: true },
  [Card.CRYSTAL_NS]: { name: "crystal N-S", segs: [N | S], crystal: true },
  [Card.CRYSTAL_CROSSROADS]: { name: "crystal crossroads", segs: [X], crystal: true },
  [Card.CRYSTAL_T_NS_E]: { name: "crystal T N-S-E", segs: [N | S | E], crystal: true },
  [Card.CRYSTAL_T_EW_N]: { name: "crystal T N-E-W", segs: [E | W | N], crystal: true },
  [Card.CRYSTAL_CURVE_NW]: { name: "crystal curve N-W", segs: [N | W], crystal: true },
  [Card.CRYSTAL_CURVE_NE]: { name: "crystal curve N-E", segs: [N | E], crystal: true },
  [Card.CRYSTAL_DEAD_EW]: { name: "crystal dead end E+W", segs: [E, W], crystal: true },
  [Card.CRYSTAL_DEAD_NE]: { name: "crystal dead end N+E", segs: [N, E], crystal: true },
  [Card.START]: { name: "start", segs: [X], ladder: true },
  [Card.GOAL_GOLD]: { name: "gold", segs: [X] },
  [Card.GOAL_COAL_NW]: { name: "coal N-W", segs: [N | W] },
  [Card.GOAL_COAL_NE]: { name: "coal N-E", segs: [N | E] },
  [Card.BREAK_PICK]: { name: "broken pick" },
  [Card.BREAK_LANTERN]: { name: "broken lantern" },
  [Card.BREAK_CART]: { name: "broken cart" },
  [Card.REPAIR_PICK]: { name: "repair pick" },
  [Card.REPAIR_LANTERN]: { name: "repair lantern" },
  [Card.REPAIR_CART]: { name: "repair cart" },
  [Card.REPAIR_PICK_LANTERN]: { name: "repair pick or lantern" },
  [Card.REPAIR_PICK_CART]: { name: "repair pick or cart" },
  [Card.REPAIR_LANTERN_CART]: { name: "repair lantern or cart" },
  [Card.ROCKFALL]: { name: "rockfall" },
  [Card.MAP]: { name: "map" },
  [Card.INSPECTION]: { name: "inspection" },
  [Card.THEFT]: { name: "theft" },
  [Card.HANDS_OFF]: { name: "hands off" },
  [Card.SWAP_HATS]: { name: "swap your hats" },
  [Card.SWAP_HAND]: { name: "swap your hand" },
  [Card.TRAPPED]: { name: "trapped" },
  [Card.FREE_AT_LAST]: { name: "free at last" },
};

export const cardName = (c: Card) => defs[c]?.name ?? "a card";
const isPath = (c: Card) => !!defs[c]?.segs && c < Card.START;

const rot = (m: number) => ((m << 2) | (m >> 2)) & 15;
const edgeLetters = (m: number) => ["N", "E", "S", "W"].filter((_, i) => m & (1 << i)).join("-");

// symmetric: the card looks the same turned (the legal list names it unturned only).
function symmetric(c: Card): boolean {
  const s = defs[c]?.segs ?? [];
  const a = [...s].sort().join(),
    b = s.map(rot).sort().join();
  return a === b;
}

// placedName is a card as it lies: "curve N-E turned to S-W".
function placedName(c: Card, rotated: boolean): string {
  const n = cardName(c);
  if (!rotated || symmetric(c)) return n;
  return `${n} turned to ${(defs[c]?.segs ?? []).map((m) => edgeLetters(rot(m))).join("+")}`;
}

const roleNames: Record<number, string> = {
  [Role.DIGGER]: "gold digger",
  [Role.SABOTEUR]: "saboteur",
  [Role.BLUE_DIGGER]: "blue gold digger",
  [Role.GREEN_DIGGER]: "green gold digger",
  [Role.BOSS]: "boss",
  [Role.GEOLOGIST]: "geologist",
  [Role.PROFITEER]: "profiteer",
};
const roleTeam: Record<number, string> = {
  [Role.DIGGER]: "diggers",
  [Role.SABOTEUR]: "saboteurs",
  [Role.BLUE_DIGGER]: "blue team",
  [Role.GREEN_DIGGER]: "green team",
  [Role.BOSS]: "with either team",
  [Role.GEOLOGIST]: "for the crystals",
  [Role.PROFITEER]: "wins with anyone",
};
const toolNames: Record<number, string> = { [Tool.PICK]: "pick", [Tool.LANTERN]: "lantern", [Tool.CART]: "cart" };

// ---- tiles ----

const TW = 50,
  TH = 70; // a tile's drawing box, a card's proportions
const mid: Record<number, [number, number]> = { [N]: [25, 0], [E]: [50, 35], [S]: [25, 70], [W]: [0, 35] };
const edgesOf = (m: number) => [N, E, S, W].filter((e) => m & e);

function segPath(m: number, dead: boolean): string {
  const es = edgesOf(m);
  if (es.length === 1) {
    const [x, y] = mid[es[0]];
    const f = dead ? 0.55 : 1; // a dead end stops short of the centre
    return `M${x} ${y}L${x + (25 - x) * f} ${y + (35 - y) * f}`;
  }
  if (es.length === 2 && (es[0] | es[1]) !== (N | S) && (es[0] | es[1]) !== (E | W)) {
    const [a, b] = es.map((e) => mid[e]);
    return `M${a[0]} ${a[1]}Q25 35 ${b[0]} ${b[1]}`;
  }
  return es.map((e) => `M${mid[e][0]} ${mid[e][1]}L25 35`).join("");
}

function Tunnels({ segs, ladder }: { segs: number[]; ladder?: boolean }) {
  return (
    <>
      {segs.map((m, i) => {
        const d = segPath(m, !ladder);
        return (
          <g key={i}>
            <path d={d} class="t-edge" />
            <path d={d} class="t-path" />
            {edgesOf(m).length === 1 && !ladder && (() => {
              const [x, y] = mid[m];
              return <circle cx={x + (25 - x) * 0.55} cy={y + (35 - y) * 0.55} r="6" class="t-rock" />;
            })()}
          </g>
        );
      })}
    </>
  );
}

function Glyph({ what, x, y }: { what: string; x: number; y: number }) {
  const t = `translate(${x} ${y})`;
  switch (what) {
    case "pick":
      return (
        <g transform={t} class="g-tool">
          <path d="M1 7Q10 -1 19 7" fill="none" />
          <path d="M10 3L10 19" />
        </g>
      );
    case "lantern":
      return (
        <g transform={t} class="g-tool">
          <circle cx="10" cy="3" r="2.5" fill="none" />
          <rect x="5" y="6" width="10" height="12" rx="2" fill="#ffd54a" />
        </g>
      );
    case "cart":
      return (
        <g transform={t} class="g-tool">
          <path d="M1 5L19 5L16 14L4 14Z" fill="#b98b52" />
          <circle cx="6" cy="17" r="2.5" fill="#333" />
          <circle cx="14" cy="17" r="2.5" fill="#333" />
        </g>
      );
  }
  return null;
}

const toolsOf = (c: Card): string[] => {
  const n = cardName(c);
  return ["pick", "lantern", "cart"].filter((t) => n.includes(t));
};

function ActionArt({ c }: { c: Card }) {
  const n = cardName(c);
  const broken = n.startsWith("broken"),
    repair = n.startsWith("repair");
  const band = broken ? "#b3261e" : repair ? "#2e7d32" : c >= Card.INSPECTION ? "#6a4c93" : "#5d6d7e";
  const tools = toolsOf(c);
  const words = n.split(" ");
  const lines: string[] = [];
  for (const w of words) {
    if (lines.length && (lines[lines.length - 1] + " " + w).length <= 9) lines[lines.length - 1] += " " + w;
    else lines.push(w);
  }
  return (
    <>
      <rect x="1" y="1" width="48" height="68" rx="5" fill="#f7f1e1" stroke={band} stroke-width="2" />
      <rect x="1" y="1" width="48" height="10" rx="5" fill={band} />
      {tools.length === 1 && <Glyph what={tools[0]} x={15} y={16} />}
      {tools.length === 2 && (
        <>
          <Glyph what={tools[0]} x={3} y={16} />
          <Glyph what={tools[1]} x={27} y={16} />
        </>
      )}
      {broken && <path d="M10 14L40 38M40 14L10 38" stroke="#b3261e" stroke-width="3" />}
      {repair && <path d="M18 40L23 45L33 33" stroke="#2e7d32" stroke-width="3" fill="none" />}
      {c === Card.ROCKFALL && (
        <g fill="#6b6b6b" stroke="#333">
          <circle cx="17" cy="30" r="7" />
          <circle cx="31" cy="28" r="8" />
          <circle cx="25" cy="20" r="6" />
        </g>
      )}
      {c === Card.MAP && (
        <g>
          <rect x="10" y="15" width="30" height="22" fill="#f3dfa2" stroke="#7a5634" />
          <path d="M13 32Q20 20 28 26T37 19" stroke="#7a5634" stroke-dasharray="2 2" fill="none" />
          <path d="M33 16L39 22M39 16L33 22" stroke="#b3261e" stroke-width="2" />
        </g>
      )}
      {c === Card.INSPECTION && (
        <g>
          <ellipse cx="25" cy="27" rx="14" ry="8" fill="#fff" stroke="#333" />
          <circle cx="25" cy="27" r="4" fill="#333" />
        </g>
      )}
      {c === Card.TRAPPED && <path d="M12 16V38M20 16V38M28 16V38M36 16V38M10 18H38M10 36H38" stroke="#333" stroke-width="2" />}
      {c === Card.FREE_AT_LAST && <path d="M12 16V38M20 16V26M28 30V38M36 16V38M10 18H38M10 36H38" stroke="#2e7d32" stroke-width="2" />}
      {c === Card.THEFT && (
        <g>
          <path d="M16 22Q25 14 34 22L36 38H14Z" fill="#c9a227" stroke="#6b5300" />
          <text x="25" y="34" text-anchor="middle" font-size="10" font-weight="bold" fill="#4a3a00">
            $
          </text>
        </g>
      )}
      <text x="25" y={lines.length > 2 ? 50 : 55} text-anchor="middle" font-size="8" fill="#222">
        {lines.slice(0, 3).map((l, i) => (
          <tspan key={i} x="25" dy={i ? 8 : 0}>
            {/* words apart in the text too, as the card's name says them (axe: the visible text is in the name) */}
            {i < lines.length - 1 && i < 2 ? `${l} ` : l}
          </tspan>
        ))}
      </text>
    </>
  );
}

// TileArt draws a card: a path card's tunnels (turned when rotated), a goal face down (or what
// the viewer's map showed of it), an action card's picture and name.
export function TileArt({ c, rotated, faceDown }: { c: Card; rotated?: boolean; faceDown?: boolean }) {
  if (faceDown) {
    return (
      <>
        <rect x="1" y="1" width="48" height="68" rx="5" class="t-back" />
        <path d="M8 8H42V62H8Z" fill="none" stroke="#c9a227" stroke-dasharray="3 3" />
        <text x="25" y="42" text-anchor="middle" font-size="22" fill="#c9a227" font-weight="bold">
          ?
        </text>
        {c !== Card.UNSPECIFIED && (
          <g>
            <circle cx="38" cy="58" r="8" fill={c === Card.GOAL_GOLD ? "#ffd54a" : "#222"} stroke="#fff" />
            <text x="38" y="61" text-anchor="middle" font-size="8" fill={c === Card.GOAL_GOLD ? "#222" : "#fff"}>
              {c === Card.GOAL_GOLD ? "$" : "c"}
            </text>
          </g>
        )}
      </>
    );
  }
  const d = defs[c];
  if (!d) return <rect x="1" y="1" width="48" height="68" rx="5" fill="#ccc" />;
  if (!d.segs) return <ActionArt c={c} />;
  const start = c === Card.START,
    goal = c === Card.GOAL_GOLD || c === Card.GOAL_COAL_NE || c === Card.GOAL_COAL_NW;
  return (
    <>
      <rect x="1" y="1" width="48" height="68" rx="5" class={start ? "t-card t-start" : goal ? "t-card t-goal" : "t-card"} />
      <g transform={rotated ? "rotate(180 25 35)" : undefined}>
        <Tunnels segs={d.segs} ladder={d.ladder && !start} />
        {d.ladder && (
          <g class="t-ladder">
            <path d="M20 22V48M30 22V48M20 27H30M20 33H30M20 39H30M20 45H30" />
          </g>
        )}
        {d.door && (
          <g>
            <path d="M17 47V29Q25 20 33 29V47Z" fill={d.door === "blue" ? "#1f5fbf" : "#2e8b3a"} stroke="#111" />
            <text x="25" y="42" text-anchor="middle" font-size="9" fill="#fff" font-weight="bold">
              {d.door === "blue" ? "B" : "G"}
            </text>
          </g>
        )}
        {d.crystal && <path d="M40 6L46 12L40 20L34 12Z" fill="#b07fe0" stroke="#fff" />}
        {c === Card.GOAL_GOLD && (
          <g fill="#ffd54a" stroke="#8a6d00">
            <circle cx="20" cy="36" r="5" />
            <circle cx="30" cy="36" r="5" />
            <circle cx="25" cy="29" r="5" />
          </g>
        )}
        {(c === Card.GOAL_COAL_NE || c === Card.GOAL_COAL_NW) && (
          <g fill="#222">
            <circle cx="20" cy="50" r="4" />
            <circle cx="29" cy="52" r="5" />
          </g>
        )}
      </g>
      {start && (
        <text x="25" y="66" text-anchor="middle" font-size="7" fill="#fff" font-weight="bold">
          START
        </text>
      )}
    </>
  );
}

function Tile({ c, rotated, faceDown, label, cls = "" }: { c: Card; rotated?: boolean; faceDown?: boolean; label: string; cls?: string }) {
  return (
    <svg class={`tile ${cls}`} viewBox={`0 0 ${TW} ${TH}`} role="img" aria-label={label}>
      <title>{label}</title>
      <TileArt c={c} rotated={rotated} faceDown={faceDown} />
    </svg>
  );
}

// ---- what the legal moves are, by what they act on ----

type Move = { l: Legal; a: Action };

function playTarget(a: Action, viewer: number): { seat?: number; cell?: string } {
  if (a.kind.case !== "play") return {};
  const p = a.kind.value;
  if (p.card === Card.ROCKFALL || p.card === Card.MAP) return { cell: `${p.cell?.x ?? 0},${p.cell?.y ?? 0}` };
  if (p.card === Card.THEFT) return { seat: viewer };
  return { seat: p.targetSeat };
}

const sameBag = (a: Card[], b: Card[]) => a.length === b.length && [...a].sort().join() === [...b].sort().join();

export interface SaboteurProps {
  raw: Any;
  legal: Legal[];
  act: (l: Legal) => void;
  name: (n: number) => string;
}

export function SaboteurPane({ raw, legal, act, name }: SaboteurProps) {
  const v = useMemo(() => anyUnpack(raw, ViewSchema) as View | undefined, [raw]);
  const moves = useMemo<Move[]>(() => legal.map((l) => ({ l, a: anyUnpack(l.action, ActionSchema) as Action })).filter((m) => !!m.a), [legal]);
  const [sel, setSel] = useState<Card | null>(null); // the card picked from the hand
  const [turned, setTurned] = useState(false);
  const [discarding, setDiscarding] = useState<number[] | null>(null); // hand indexes chosen to discard
  // Other moves start the choice again, unless the picked card is still usable (the same list sent
  // again changes nothing).
  const movesKey = legal.map((l) => l.text).join("\n");
  useEffect(() => {
    setDiscarding(null);
    if (sel !== null && !moves.some((m) => (m.a.kind.case === "place" || m.a.kind.case === "play") && m.a.kind.value.card === sel)) setSel(null);
  }, [movesKey]);
  const keys = useRef({ sel, turned });
  keys.current = { sel, turned };
  useEffect(() => {
    const f = (e: KeyboardEvent) => {
      if (e.target instanceof HTMLInputElement || e.ctrlKey || e.metaKey || e.altKey) return;
      if ((e.key === "r" || e.key === "R") && keys.current.sel !== null && isPath(keys.current.sel)) setTurned((t) => !t);
      if (e.key === "Escape") setSel(null), setDiscarding(null);
    };
    addEventListener("keydown", f);
    return () => removeEventListener("keydown", f);
  }, []);
  if (!v) return null;
  const viewer = v.viewer;
  const me = viewer >= 0 ? viewer : -1;

  // The targets of the picked card: cells (path cards, rockfall, map) and seats.
  const cellTargets = new Map<string, Move>();
  const seatTargets = new Map<number, Move[]>();
  if (sel !== null && !discarding) {
    for (const m of moves) {
      const k = m.a.kind;
      if (k.case === "place" && k.value.card === sel && (k.value.rotated === turned || symmetric(sel))) cellTargets.set(`${k.value.cell?.x ?? 0},${k.value.cell?.y ?? 0}`, m);
      if (k.case === "play" && k.value.card === sel) {
        const t = playTarget(m.a, me);
        if (t.cell) cellTargets.set(t.cell, m);
        if (t.seat !== undefined) seatTargets.set(t.seat, [...(seatTargets.get(t.seat) ?? []), m]);
      }
    }
  }
  for (const m of moves) if (m.a.kind.case === "steal") seatTargets.set(m.a.kind.value.victimSeat, [m]);
  const otherTurn =
    sel !== null && isPath(sel) && !symmetric(sel)
      ? moves.filter((m) => m.a.kind.case === "place" && m.a.kind.value.card === sel && m.a.kind.value.rotated !== turned).length
      : 0;
  const usable = (c: Card) => moves.some((m) => (m.a.kind.case === "place" || m.a.kind.case === "play") && m.a.kind.value.card === c);
  const discardable = moves.some((m) => m.a.kind.case === "discard" || m.a.kind.case === "remove");
  const pickCard = (c: Card) => {
    if (sel === c) return setSel(null);
    setSel(c);
    setTurned(false);
  };

  // Discarding: the chosen cards as a bag; the discard or the removal that bag makes.
  const chosen = discarding ? discarding.map((i) => v.hand[i]) : [];
  const discardMove = discarding ? moves.find((m) => m.a.kind.case === "discard" && sameBag(m.a.kind.value.cards, chosen)) : undefined;
  const removeMoves = discarding ? moves.filter((m) => m.a.kind.case === "remove" && sameBag(m.a.kind.value.discards, chosen)) : [];

  const prompt =
    sel !== null
      ? isPath(sel)
        ? cellTargets.size
          ? `Click a highlighted cell to place the ${placedName(sel, turned)}${symmetric(sel) ? "" : " (r turns it)"}.`
          : otherTurn
            ? `The ${cardName(sel)} fits nowhere this way up: turn it (r).`
            : `The ${cardName(sel)} fits nowhere.`
        : `Click the ${cellTargets.size ? "card on the board" : "seat"} to play the ${cardName(sel)} on.`
      : discarding
        ? "Click the cards to discard, then confirm."
        : moves.length
          ? v.phase === Phase.THEFT
            ? "Click the seat to rob."
            : v.phase === Phase.PICK_GOLD
              ? "Click a gold card to take it."
              : "Your turn: pick a card of your hand."
          : "";

  return (
    <div class="game saboteur" data-testid="game">
      <Facts v={v} name={name} />
      <SeatPanels v={v} name={name} targets={seatTargets} act={act} removeMoves={removeMoves} />
      <Board v={v} targets={cellTargets} sel={sel} turned={turned} act={act} />
      {v.goldOffer.length > 0 && (
        <div class="gold-offer" role="group" aria-label="gold on offer">
          <h3>Gold on offer</h3>
          {v.goldOffer.map((g, i) => {
            const m = moves.find((m) => m.a.kind.case === "pick" && m.a.kind.value.value === g);
            const label = `gold card worth ${g} nugget${g === 1 ? "" : "s"}`;
            return m ? (
              <button key={i} class="gold target" data-testid="gold" aria-label={`take the ${label}`} onClick={() => act(m.l)}>
                {g}
              </button>
            ) : (
              <span key={i} class="gold" role="img" aria-label={label}>
                {g}
              </span>
            );
          })}
        </div>
      )}
      {me >= 0 && (
        <div class="sab-hand dock" role="group" aria-label="your hand" data-testid="hand">
          <h3>
            Your hand{" "}
            <span class="role-chip" data-role={Role[v.role]}>
              you are {roleNames[v.role] ? `a ${roleNames[v.role]}` : "without a role"}
              {roleTeam[v.role] ? ` (${roleTeam[v.role]})` : ""}
            </span>
          </h3>
          <div class="tiles">
            {v.hand.length === 0 && <span class="none">no card</span>}
            {v.hand.map((c, i) => {
              const picked = discarding ? discarding.includes(i) : sel === c && v.hand.indexOf(c) === i;
              const can = discarding ? true : usable(c);
              const r = picked && !discarding && turned && !symmetric(c);
              const label = `${cardName(c)}${r ? ", turned" : ""}`;
              return can ? (
                <button
                  key={i}
                  class={`tile-btn${picked ? " picked" : ""}`}
                  aria-pressed={picked}
                  aria-label={discarding ? `discard ${label}` : `pick ${label}`}
                  title={label}
                  data-card={Card[c]}
                  data-path={isPath(c) ? "1" : undefined}
                  data-turned={r ? "1" : undefined}
                  onClick={() => (discarding ? setDiscarding(picked ? discarding.filter((x) => x !== i) : [...discarding, i]) : pickCard(c))}
                >
                  <Tile c={c} rotated={r} label={label} />
                </button>
              ) : (
                <span key={i} class="tile-btn idle" title={label}>
                  <Tile c={c} label={`${label} (not playable now)`} />
                </span>
              );
            })}
          </div>
          <p class="sab-bar" aria-live="polite">
            <span data-testid="prompt">{prompt}</span>{" "}
            {sel !== null && isPath(sel) && !symmetric(sel) && (
              <button onClick={() => setTurned(!turned)} data-testid="rotate" aria-label="turn the card (r)">
                ↻ turn (r)
              </button>
            )}{" "}
            {(sel !== null || discarding) && (
              <button onClick={() => (setSel(null), setDiscarding(null))} data-testid="cancel">
                cancel (Esc)
              </button>
            )}{" "}
            {!discarding && discardable && (
              <button onClick={() => (setSel(null), setDiscarding([]))} data-testid="discard-mode">
                discard…
              </button>
            )}{" "}
            {discardMove && (
              <button class="target" onClick={() => act(discardMove.l)} data-testid="discard">
                discard {chosen.length} card{chosen.length === 1 ? "" : "s"} and draw
              </button>
            )}{" "}
            {removeMoves.map((m, i) => (
              <button key={i} class="target" onClick={() => act(m.l)} data-testid="remove">
                discard these two to remove the {cardName((m.a.kind.value as any).inFront)} in front of you
              </button>
            ))}
          </p>
        </div>
      )}
    </div>
  );
}

const phaseWords: Record<number, string> = {
  [Phase.TURN]: "to play",
  [Phase.PICK_GOLD]: "to pick gold",
  [Phase.THEFT]: "to steal a nugget",
  [Phase.GAME_OVER]: "the game is over",
};

function Facts({ v, name }: { v: View; name: (n: number) => string }) {
  const lr = v.lastRound;
  return (
    <div class="sab-facts">
      <span data-testid="round">
        round {v.round} of 3
      </span>
      <span>{v.phase === Phase.GAME_OVER ? phaseWords[v.phase] : `${name(v.currentSeat)} ${phaseWords[v.phase] ?? ""}`}</span>
      <span>draw pile {v.drawPile}</span>
      <span>discards {v.discardPile}</span>
      {v.removed > 0 && <span>{v.removed} set aside</span>}
      {v.goldDeck > 0 && <span>gold deck {v.goldDeck}</span>}
      {lr && lr.round > 0 && (
        <span class="last-round">
          round {lr.round}: {lr.goldReached ? `the gold was reached by ${name(lr.connector)}` : "the gold was not reached"}; winners:{" "}
          {lr.winners.length ? lr.winners.map(name).join(", ") : "none"}
        </span>
      )}
    </div>
  );
}

function SeatPanels(props: { v: View; name: (n: number) => string; targets: Map<number, Move[]>; act: (l: Legal) => void; removeMoves: Move[] }) {
  const { v, name, targets, act, removeMoves } = props;
  return (
    <ol class="sab-seats" aria-label="the dwarves">
      {v.seatInfo.map((s, i) => {
        const ms = targets.get(i) ?? [];
        const role = i === v.viewer ? v.role : s.role;
        const team = role === Role.BLUE_DIGGER ? "blue" : role === Role.GREEN_DIGGER ? "green" : role === Role.SABOTEUR ? "saboteur" : "";
        const tools = s.inFront.map(cardName);
        const what = ms[0] ? targetWords(ms[0].a, name, i === v.viewer) : "";
        const body = (
          <>
            <b>{name(i)}</b>
            {i === v.currentSeat && v.phase !== Phase.GAME_OVER && <span class="to-play"> · {phaseWords[v.phase]}</span>}
            <span class="role-chip" data-team={team}>
              {roleNames[role] ?? "role unknown"}
            </span>
            <span class="nuggets" aria-label={`${s.nuggets} nuggets`}>
              ● {s.nuggets}
            </span>
            <span class="count">{s.handCount} cards</span>
            <span class="infront" role="group" aria-label={tools.length ? `in front: ${tools.join(", ")}` : "nothing in front"}>
              {s.inFront.map((c, k) => {
                const rm = i === v.viewer ? removeMoves.find((m) => m.a.kind.case === "remove" && m.a.kind.value.inFront === c) : undefined;
                const tile = <Tile c={c} label={cardName(c)} cls="mini" />;
                return rm ? (
                  <button key={k} class="mini-btn target" aria-label={`remove the ${cardName(c)}`} onClick={(e) => (e.stopPropagation(), act(rm.l))}>
                    {tile}
                  </button>
                ) : (
                  <span key={k}>{tile}</span>
                );
              })}
            </span>
          </>
        );
        if (ms.length === 1)
          return (
            <li key={i} class={`sab-seat${i === v.currentSeat ? " turn" : ""}`} data-seat={i}>
              <button class="seat-target target" aria-label={what} title={what} onClick={() => act(ms[0].l)} data-testid="seat-target">
                {body}
              </button>
            </li>
          );
        return (
          <li key={i} class={`sab-seat${i === v.currentSeat ? " turn" : ""}${ms.length ? " target" : ""}`} data-seat={i}>
            <div class="seat-target">{body}</div>
            {ms.length > 1 &&
              ms.map((m, k) => (
                <button key={k} class="target" onClick={() => act(m.l)} data-testid="seat-target">
                  {targetWords(m.a, name, i === v.viewer)}
                </button>
              ))}
          </li>
        );
      })}
    </ol>
  );
}

function targetWords(a: Action, name: (n: number) => string, self: boolean): string {
  if (a.kind.case === "steal") return `steal a nugget from ${name(a.kind.value.victimSeat)}`;
  if (a.kind.case !== "play") return "";
  const p = a.kind.value;
  const who = self ? "yourself" : name(p.targetSeat);
  if (p.card === Card.THEFT) return "lay the theft in front of you";
  if (p.tool) return `repair ${who}'s ${toolNames[p.tool]}`;
  return `play the ${cardName(p.card)} on ${who}`;
}

// ---- the board ----

const key = (x: number, y: number) => `${x},${y}`;

function Board({ v, targets, sel, turned, act }: { v: View; targets: Map<string, Move>; sel: Card | null; turned: boolean; act: (l: Legal) => void }) {
  const cards = new Map(v.board.map((b) => [key(b.cell?.x ?? 0, b.cell?.y ?? 0), b]));
  // The frontier: empty cells next to a card, where the maze may grow (drawn as faint slots).
  const free = new Set<string>();
  for (const b of v.board) {
    const x = b.cell?.x ?? 0,
      y = b.cell?.y ?? 0;
    for (const [dx, dy] of [[0, -1], [1, 0], [0, 1], [-1, 0]]) if (!cards.has(key(x + dx, y + dy))) free.add(key(x + dx, y + dy));
  }
  for (const k of targets.keys()) if (!cards.has(k)) free.add(k);
  const all = [...cards.keys(), ...free].map((k) => k.split(",").map(Number));
  const xs = all.map((p) => p[0]),
    ys = all.map((p) => p[1]);
  const x0 = Math.min(...xs),
    x1 = Math.max(...xs),
    y0 = Math.min(...ys),
    y1 = Math.max(...ys);
  const cols = x1 - x0 + 1,
    rows = y1 - y0 + 1;

  // Pan (drag, scroll, or the arrow keys once the frame has the focus) and zoom (buttons, ctrl +
  // wheel); "fit" follows the frame's width.
  const frame = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(800);
  const [zoom, setZoom] = useState<number | null>(null);
  useEffect(() => {
    const el = frame.current;
    if (!el) return;
    const ro = new ResizeObserver(() => setWidth(el.clientWidth));
    ro.observe(el);
    setWidth(el.clientWidth);
    return () => ro.disconnect();
  }, []);
  // Fit: the whole maze in the frame's width and in 42 % of the window's height (the hand stays
  // in view below it).
  const fit = Math.max(0.35, Math.min(1.2, (width - 8) / (cols * 44), (innerHeight * 0.42 - 8) / (rows * 62)));
  const z = zoom ?? fit;
  const tw = Math.round(44 * z),
    th = Math.round(62 * z);
  const drag = useRef<{ x: number; y: number; l: number; t: number } | null>(null);
  const onDown = (e: PointerEvent) => {
    if (e.pointerType !== "mouse" || (e.target as Element).closest("button")) return;
    const el = frame.current!;
    drag.current = { x: e.clientX, y: e.clientY, l: el.scrollLeft, t: el.scrollTop };
  };
  const onMove = (e: PointerEvent) => {
    const d = drag.current;
    if (!d) return;
    const el = frame.current!;
    el.scrollLeft = d.l - (e.clientX - d.x);
    el.scrollTop = d.t - (e.clientY - d.y);
  };
  const onWheel = (e: WheelEvent) => {
    if (!e.ctrlKey) return;
    e.preventDefault();
    setZoom(Math.max(0.3, Math.min(2.5, z * (e.deltaY < 0 ? 1.15 : 1 / 1.15))));
  };
  const pos = (x: number, y: number) => ({ left: `${(x - x0) * tw}px`, top: `${(y - y0) * th}px`, width: `${tw}px`, height: `${th}px` });
  const items = [];
  for (const [k, b] of cards) {
    const x = b.cell?.x ?? 0,
      y = b.cell?.y ?? 0;
    const m = targets.get(k);
    const label = b.faceDown
      ? `face-down goal at (${x}, ${y})${b.card ? `: your map showed ${b.card === Card.GOAL_GOLD ? "the gold" : "coal"}` : ""}`
      : `${placedName(b.card, b.rotated)} at (${x}, ${y})`;
    items.push(
      <div key={k} class={`cell card-cell${m ? " target" : ""}`} style={pos(x, y)} data-cell={k} data-card={Card[b.card]}>
        <Tile c={b.card} rotated={b.rotated} faceDown={b.faceDown} label={label} />
        {m && sel !== null && (
          <button class="cell-btn" aria-label={`play the ${cardName(sel)} on the ${label}`} title={`play the ${cardName(sel)} here`} onClick={() => act(m.l)} data-testid="cell-target" />
        )}
      </div>,
    );
  }
  for (const k of free) {
    const [x, y] = k.split(",").map(Number);
    const m = targets.get(k);
    items.push(
      <div key={k} class={`cell free${m ? " target" : ""}`} style={pos(x, y)} data-cell={k}>
        {m && sel !== null ? (
          <button class="cell-btn" aria-label={`place the ${placedName(sel, turned)} at (${x}, ${y})`} title={`(${x}, ${y})`} onClick={() => act(m.l)} data-testid="cell-target">
            <Tile c={sel} rotated={turned && !symmetric(sel)} label={`${placedName(sel, turned)} here`} cls="ghost" />
          </button>
        ) : null}
      </div>,
    );
  }
  return (
    <div class="sab-board">
      <div class="zoom" role="group" aria-label="zoom the maze">
        <button onClick={() => setZoom(Math.max(0.3, z / 1.25))} aria-label="zoom out">
          −
        </button>
        <button onClick={() => setZoom(null)} aria-label="fit the maze to the frame">
          fit
        </button>
        <button onClick={() => setZoom(Math.min(2.5, z * 1.25))} aria-label="zoom in">
          +
        </button>
        <span class="hint">x grows east, y south; drag or scroll to pan</span>
      </div>
      <div class="frame" ref={frame} onPointerDown={onDown} onPointerMove={onMove} onPointerUp={() => (drag.current = null)} onPointerLeave={() => (drag.current = null)} onWheel={onWheel} data-testid="board" role="region" aria-label="the maze" tabIndex={0}>
        <div class="plane" style={{ width: `${cols * tw}px`, height: `${rows * th}px` }}>
          {items}
        </div>
      </div>
    </div>
  );
}
