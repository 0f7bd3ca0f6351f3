// Table creation: the game, the seats (a bot level per bot seat), every option of the game, public or
// private, and the time per move. Whether the game would deal a combination is the engine's word:
// the screen asks CheckTableOptions (debounced) for the options as they are and for each choice the
// player could make next, and greys out what the engine refuses with its reason. No game rule is
// copied here.
import { useEffect, useState } from "preact/hooks";
import { create } from "@bufbuild/protobuf";
import { anyPack, anyUnpack, DurationSchema, type Any } from "@bufbuild/protobuf/wkt";
import { api, newActionId, once } from "./api";
import { CouponEditor, rowsOf, tableOf, type CouponRow } from "./coupons";
import { gameName } from "./games/common";
import { errorText, go } from "./nav";
import { BotLevel, TimeLimitsSchema, type RuleViolation } from "@cardroom/client/gen/cardroom/game/v1/game_pb";
import type { GameInfo } from "@cardroom/client/gen/cardroom/gateway/v1/gateway_pb";
import { OptionsSchema as SapotagemOptions } from "@cardroom/client/gen/cardroom/sapotagem/v1/sapotagem_pb";
import { Mode, OptionsSchema as SaboteurOptions } from "@cardroom/client/gen/cardroom/saboteur/v1/saboteur_pb";
import { OptionsSchema as SabaiOptions } from "@cardroom/client/gen/cardroom/sabaisabai/v1/sabaisabai_pb";
import { Colour, OptionsSchema as SponsioOptions } from "@cardroom/client/gen/cardroom/sponsio/v1/sponsio_pb";

// Sapotagem's 25 variants as the rulebook numbers and names them, each in one line (the API has no
// descriptions: these are the proto's comments, docs/games/sapotagem.md says more). field is the
// Options field (its JSON name, as views carry it).
export const sapotagemVariants: { field: string; name: string; line: string }[] = [
  { field: "underArrest", name: "Under Arrest", line: "one trump colour for the game, the trump pile face up, winners choose a card" },
  { field: "frogsOnDuty", name: "Frogs on Duty", line: "one trump colour, no jumps, no trump pile, all cards dealt" },
  { field: "aceUpTheSleeve", name: "Ace Up the Sleeve", line: "each player gives one card to a trump deck" },
  { field: "costlyAbsence", name: "Costly Absence", line: "all cards dealt, optional jumps that cost points" },
  { field: "doubleAgent", name: "Double Agent", line: "fewest points wins" },
  { field: "agencyTogether", name: "Agency Society, Together", line: "teams (4 or 6 players) share one play area" },
  { field: "agencyClever", name: "Agency Society, Clever", line: "teams score their best member's play area" },
  { field: "agencyDouble", name: "Agency Society, Double", line: "shared team areas, fewest team points wins" },
  { field: "innocentOrGuilty", name: "Innocent or Guilty?", line: "the rising scoring table" },
  { field: "soapedFrog", name: "Soaped Frog", line: "the alternative scoring table" },
  { field: "frogBackInTheGame", name: "Frog Back in the Game", line: "a winner may buy back a won card with a jump marker" },
  { field: "spyInitiative", name: "Spy Initiative", line: "the starting player may not jump" },
  { field: "openInformation", name: "Open Information", line: "the whole trump pile is face up" },
  { field: "fugitiveFrogs", name: "Fugitive Frogs", line: "five face-up cards go to jumpers; the last five rounds have no trump" },
  { field: "negotiatingFrogs", name: "Negotiating Frogs", line: "a jump also plays a card from the jumper's play area" },
  { field: "wildBomb", name: "Wild Bomb", line: "bombs join the faction row that scores best for their owner" },
  { field: "remoteControlBomb", name: "Remote-Control Bomb", line: "a jumper may add a bomb from hand to the round" },
  { field: "plantingInformation", name: "Planting Information", line: "each card is played in front of the player to the left" },
  { field: "closedInformation", name: "Closed Information", line: "the next trump is not revealed" },
  { field: "anonymousHelp", name: "Anonymous Help", line: "trumps go to a discard pile; a fourth card of a faction takes one back" },
  { field: "fourPiles", name: "Four Piles", line: "four piles of four revealed cards (3 players)" },
  { field: "blindPile", name: "Blind Pile", line: "four piles, only the top card revealed, winners draw at random (3 players)" },
  { field: "weakFrog", name: "Weak Frog, But Not That Weak", line: "the weakest card's player chooses the next trump colour" },
  { field: "frogHidingTheGame", name: "Frog Hiding the Game", line: "as Weak Frog, and the chooser takes a card from a closed pile" },
  { field: "plantingMoreInformation", name: "Planting More Information", line: "as Planting Information, planting for any opponent who has not received yet" },
];

// variantNames names the variants set in a Sapotagem options tree (a view's options): "base game"
// when none is.
export function variantNames(opts: Record<string, unknown> | undefined | null): string {
  const on = sapotagemVariants.filter((v) => opts?.[v.field] === true).map((v) => v.name);
  return on.length ? on.join(", ") : "base game";
}

// Choices are everything the form holds; options() turns them into the game's options message.
interface Choices {
  game: string;
  seats: number;
  variants: Record<string, boolean>;
  saboteurMode: Mode;
  discardTwo: boolean;
  rounds: number; // sabai-sabai, 0: the game's 5
  throwForOthers: boolean;
  throwWindowMs: number; // -1: the game's default
  peek: number;
  noseS: number; // 0: the game's 5 s
  botPace: string; // a key of botPaces
  removedColour: Colour;
  coupons: CouponRow[] | null; // Sponsio's own coupon table; null: the standard one
}

// ms makes a Duration of milliseconds.
const ms = (n: number) => create(DurationSchema, { seconds: BigInt(Math.floor(n / 1000)), nanos: (n % 1000) * 1e6 });

// sabai-sabai's bots' pace (Ruling B1): each bot's throw delay drawn between min and max after a
// discard, and its discard after think from its draw; "" leaves the game's (400-900 ms, 300 ms).
const botPaces: Record<string, { name: string; min: number; max: number; think: number }> = {
  quick: { name: "quick: throws 0.2–0.5 s after a discard, discards 0.15 s after drawing", min: 200, max: 500, think: 150 },
  slow: { name: "slow: throws 0.8–1.6 s after a discard, discards 0.8 s after drawing", min: 800, max: 1600, think: 800 },
  instant: { name: "at once (tables of bots only: a person cannot keep up)", min: 0, max: 0, think: 0 },
};

function options(c: Choices): Any | undefined {
  switch (c.game) {
    case "sapotagem":
      return anyPack(SapotagemOptions, create(SapotagemOptions, c.variants));
    case "saboteur":
      return anyPack(SaboteurOptions, create(SaboteurOptions, { mode: c.saboteurMode, classicDiscardTwoToRepair: c.discardTwo }));
    case "sabaisabai": {
      const w = c.throwWindowMs;
      const pace = botPaces[c.botPace];
      return anyPack(
        SabaiOptions,
        create(SabaiOptions, {
          rounds: c.rounds,
          throwForOthers: c.throwForOthers,
          peekAtStart: c.peek,
          noseDeadline: c.noseS ? create(DurationSchema, { seconds: BigInt(c.noseS) }) : undefined,
          throwWindow: w < 0 ? undefined : ms(w),
          botReactionMin: pace && ms(pace.min),
          botReactionMax: pace && ms(pace.max),
          botThink: pace && ms(pace.think),
        }),
      );
    }
    case "sponsio": {
      const t = c.coupons ? tableOf(c.coupons) : undefined;
      return anyPack(SponsioOptions, create(SponsioOptions, { removedColour: c.removedColour, couponTable: typeof t === "string" ? undefined : t }));
    }
  }
  return undefined;
}

// Probes are the choices the player could make next, each as the choices it would give: the form
// greys out those the engine refuses. Keys: "seats:N", "variant:field", "discardTwo", "throwForOthers".
function probes(c: Choices, g: GameInfo | undefined): [string, Choices][] {
  const out: [string, Choices][] = [];
  if (g) for (let n = g.minSeats; n <= g.maxSeats; n++) if (n !== c.seats) out.push([`seats:${n}`, { ...c, seats: n }]);
  if (c.game === "sapotagem")
    for (const v of sapotagemVariants) if (!c.variants[v.field]) out.push([`variant:${v.field}`, { ...c, variants: { ...c.variants, [v.field]: true } }]);
  if (c.game === "saboteur") {
    if (!c.discardTwo) out.push(["discardTwo", { ...c, discardTwo: true }]);
    out.push([`mode:${Mode.CLASSIC}`, { ...c, saboteurMode: Mode.CLASSIC }], [`mode:${Mode.SABOTEUR2}`, { ...c, saboteurMode: Mode.SABOTEUR2 }]);
  }
  if (c.game === "sponsio" && c.removedColour === Colour.UNSPECIFIED) out.push(["colour", { ...c, removedColour: Colour.GREEN }]);
  return out;
}

async function check(c: Choices): Promise<RuleViolation | null> {
  const r = await api.checkTableOptions({ game: c.game, seats: c.seats, options: options(c) });
  return r.accepted ? null : (r.refusal ?? null);
}

// A seat other than the creator's: left for a person (who joins with the invite code) or a bot.
type SeatChoice = "person" | BotLevel;

const seatChoices: [string, string][] = [
  ["person", "a person (invite code)"],
  [String(BotLevel.EASY), "bot, easy"],
  [String(BotLevel.NORMAL), "bot, normal"],
  [String(BotLevel.STRONG), "bot, strong"],
];

const timeChoices: [number, string][] = [
  [0, "no limit"],
  [30, "30 s"],
  [60, "1 min"],
  [120, "2 min"],
  [300, "5 min"],
];

const colourNames: [Colour, string][] = [
  [Colour.UNSPECIFIED, "a random colour"],
  [Colour.GREEN, "green"],
  [Colour.YELLOW, "yellow"],
  [Colour.BLUE, "blue"],
  [Colour.RED, "red"],
];

// Refusal shows the engine's reason beside a greyed-out choice.
function Refusal({ v, id }: { v: RuleViolation | null | undefined; id: string }) {
  if (!v) return null;
  return (
    <span class="refusal" id={id} data-testid="refusal">
      {v.message} ({v.code})
    </span>
  );
}

export function CreateTable({ game }: { game: string }) {
  const [games, setGames] = useState<GameInfo[]>([]);
  const [c, setC] = useState<Choices>({
    game: game || "sapotagem",
    seats: 0,
    variants: {},
    saboteurMode: Mode.SABOTEUR2,
    discardTwo: false,
    rounds: 5,
    throwForOthers: true,
    throwWindowMs: -1,
    peek: 0,
    noseS: 0,
    botPace: "",
    removedColour: Colour.UNSPECIFIED,
    coupons: null,
  });
  const [others, setOthers] = useState<SeatChoice[]>([]);
  const [isPublic, setPublic] = useState(false);
  const [perMove, setPerMove] = useState(0);
  const [takeover, setTakeover] = useState(BotLevel.NORMAL);
  const [verdict, setVerdict] = useState<RuleViolation | null | undefined>(undefined); // undefined: being asked
  const [refused, setRefused] = useState<Record<string, RuleViolation>>({});
  const [err, setErr] = useState("");
  const [busy, setBusy] = useState(false);
  const info = games.find((g) => g.game === c.game);
  // What the player typed that cannot be read (a coupon's options): said at once, not asked.
  const typed = c.game === "sponsio" && c.coupons ? tableOf(c.coupons) : undefined;
  const typedErr = typeof typed === "string" ? typed : "";

  useEffect(() => {
    api.listGames({}).then((r) => setGames(r.games), (e) => setErr(errorText(e)));
  }, []);
  // A new game starts at its usual table.
  useEffect(() => {
    if (info && c.seats === 0) setC({ ...c, seats: info.usualSeats });
  }, [info, c.game]);
  // The other seats follow the seat count; new ones are bots at the normal level.
  useEffect(() => {
    const n = Math.max(0, c.seats - 1);
    if (others.length !== n) setOthers(Array.from({ length: n }, (_, i) => others[i] ?? BotLevel.NORMAL));
  }, [c.seats]);
  // Ask the engine, 250 ms after the last change, about the choices as they are and each next one.
  useEffect(() => {
    if (!info || c.seats === 0 || typedErr) return;
    setVerdict(undefined);
    let stale = false;
    const t = setTimeout(async () => {
      try {
        const ps = probes(c, info);
        const [now, ...next] = await Promise.all([check(c), ...ps.map(([, p]) => check(p))]);
        if (stale) return;
        const r: Record<string, RuleViolation> = {};
        next.forEach((v, i) => v && (r[ps[i][0]] = v));
        setRefused(r);
        setVerdict(now);
      } catch (e) {
        if (!stale) setErr(errorText(e));
      }
    }, 250);
    return () => {
      stale = true;
      clearTimeout(t);
    };
  }, [c, info, typedErr]);

  const set = (p: Partial<Choices>) => setC((prev) => ({ ...prev, ...p }));
  const pickGame = (g: string) => {
    setC((prev) => ({ ...prev, game: g, seats: 0 }));
    history.replaceState(null, "", `#/create/${g}`);
  };

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setErr("");
    try {
      // Clicked while the game was still being asked: ask now, and create only what it accepts.
      if (verdict === undefined) {
        const v = await check(c);
        if (v) {
          setVerdict(v);
          setBusy(false);
          return;
        }
      }
      const r = await once((requestId) =>
        api.createTable({
          game: c.game,
          seats: c.seats,
          options: options(c),
          public: isPublic,
          takeoverLevel: takeover,
          timeLimits: perMove ? create(TimeLimitsSchema, { perAction: create(DurationSchema, { seconds: BigInt(perMove) }) }) : undefined,
          requestId,
        }),
      );
      try {
        // One AddBots per level, each with a request id of its own (a retry adds none twice).
        for (const level of [BotLevel.EASY, BotLevel.NORMAL, BotLevel.STRONG]) {
          const count = others.filter((s) => s === level).length;
          if (count === 0) continue;
          const requestId = newActionId();
          await once(() => api.addBots({ tableId: r.tableId, count, level, requestId }));
        }
        if (others.every((s) => s !== "person")) {
          await api.startTable({ tableId: r.tableId });
          return go("table", r.tableId);
        }
      } catch {
        // The table exists: its page shows it, where the owner adds bots and starts by hand.
      }
      go("private", r.tableId);
    } catch (e) {
      setErr(errorText(e));
      setBusy(false);
    }
  };

  const standardTable = c.game === "sponsio" && info?.defaultOptions ? anyUnpack(info.defaultOptions, SponsioOptions)?.couponTable : undefined;
  const seatNumbers = info ? Array.from({ length: info.maxSeats - info.minSeats + 1 }, (_, i) => info.minSeats + i) : [];
  const allBots = others.every((s) => s !== "person");
  return (
    <section class="create">
      <h1>New table</h1>
      <form onSubmit={submit} data-testid="create-form">
        <fieldset>
          <legend>Game</legend>
          <div class="choices">
            {games.map((g) => (
              <label key={g.game}>
                <input type="radio" name="game" value={g.game} checked={g.game === c.game} onChange={() => pickGame(g.game)} data-testid={`game-${g.game}`} />{" "}
                {gameName(g.game)}
              </label>
            ))}
          </div>
        </fieldset>

        <fieldset>
          <legend>Seats</legend>
          <label>
            Players{" "}
            <select value={c.seats} onChange={(e) => set({ seats: Number(e.currentTarget.value) })} data-testid="seats">
              {seatNumbers.map((n) => (
                <option key={n} value={n} disabled={!!refused[`seats:${n}`]} title={refused[`seats:${n}`]?.message}>
                  {n}
                  {refused[`seats:${n}`] ? ` — ${refused[`seats:${n}`].message}` : ""}
                </option>
              ))}
            </select>
          </label>
          <ol class="seat-list">
            <li>you</li>
            {others.map((s, i) => (
              <li key={i}>
                <label>
                  Seat {i + 2}{" "}
                  <select
                    value={String(s)}
                    onChange={(e) => {
                      const v = e.currentTarget.value;
                      setOthers((prev) => prev.map((s, j) => (j === i ? (v === "person" ? "person" : (Number(v) as BotLevel)) : s)));
                    }}
                    data-testid={`seat-${i + 2}`}
                  >
                    {seatChoices.map(([v, n]) => (
                      <option key={v} value={v}>
                        {n}
                      </option>
                    ))}
                  </select>
                </label>
              </li>
            ))}
          </ol>
        </fieldset>

        {c.game === "sapotagem" && (
          <fieldset>
            <legend>Variants (none: the base game)</legend>
            <ul class="variants">
              {sapotagemVariants.map((v, i) => {
                const no = !c.variants[v.field] ? refused[`variant:${v.field}`] : undefined;
                return (
                  <li key={v.field} class={no ? "refused" : ""}>
                    <label>
                      <input
                        type="checkbox"
                        checked={!!c.variants[v.field]}
                        disabled={!!no}
                        aria-describedby={no ? `why-${v.field}` : undefined}
                        onChange={(e) => {
                          const on = e.currentTarget.checked;
                          setC((prev) => ({ ...prev, variants: { ...prev.variants, [v.field]: on } }));
                        }}
                        data-testid={`variant-${v.field}`}
                      />{" "}
                      <b>
                        {i + 1}. {v.name}
                      </b>
                      : {v.line}
                    </label>{" "}
                    <Refusal v={no} id={`why-${v.field}`} />
                  </li>
                );
              })}
            </ul>
          </fieldset>
        )}

        {c.game === "saboteur" && (
          <fieldset>
            <legend>Rules</legend>
            {[
              [Mode.SABOTEUR2, "Saboteur 2: the base game with the expansion"],
              [Mode.CLASSIC, "Classic: the base game alone"],
            ].map(([m, n]) => (
              <label key={m} class="line">
                <input
                  type="radio"
                  name="mode"
                  checked={c.saboteurMode === m}
                  disabled={c.saboteurMode !== m && !!refused[`mode:${m}`]}
                  onChange={() => set({ saboteurMode: m as Mode, discardTwo: false })}
                  data-testid={`mode-${m}`}
                />{" "}
                {n} <Refusal v={c.saboteurMode !== m ? refused[`mode:${m}`] : undefined} id={`why-mode-${m}`} />
              </label>
            ))}
            <label class="line">
              <input
                type="checkbox"
                checked={c.discardTwo}
                disabled={!c.discardTwo && !!refused.discardTwo}
                onChange={(e) => set({ discardTwo: e.currentTarget.checked })}
                data-testid="discard-two"
              />{" "}
              Discard two cards to repair one of your broken tools{" "}
              <Refusal v={!c.discardTwo ? refused.discardTwo : undefined} id="why-discard-two" />
            </label>
          </fieldset>
        )}

        {c.game === "sabaisabai" && (
          <fieldset>
            <legend>Rules</legend>
            <label class="line">
              Rounds{" "}
              <input type="number" min={1} max={50} value={c.rounds} onInput={(e) => set({ rounds: Number(e.currentTarget.value) })} data-testid="rounds" />
            </label>
            <label class="line">
              <input type="checkbox" checked={c.throwForOthers} onChange={(e) => set({ throwForOthers: e.currentTarget.checked })} data-testid="throw-for-others" />{" "}
              Throwing for others (a card from another player's row; off: the rulebook's simplified form)
            </label>
            <label class="line">
              Throw window{" "}
              <select value={c.throwWindowMs} onChange={(e) => set({ throwWindowMs: Number(e.currentTarget.value) })} data-testid="throw-window">
                <option value={-1}>the game's default (0.8 s with people at the table)</option>
                {[0, 400, 800, 1500, 3000].map((ms) => (
                  <option key={ms} value={ms}>
                    {ms / 1000} s
                  </option>
                ))}
              </select>
            </label>
            <label class="line">
              "Four together" nose window{" "}
              <select value={c.noseS} onChange={(e) => set({ noseS: Number(e.currentTarget.value) })} data-testid="nose-window">
                <option value={0}>the game's default (5 s)</option>
                {[2, 3, 10, 20, 60].map((s) => (
                  <option key={s} value={s}>
                    {s} s
                  </option>
                ))}
              </select>
            </label>
            <label class="line">
              Cards each player sees at the deal{" "}
              <input type="number" min={0} max={4} value={c.peek} onInput={(e) => set({ peek: Number(e.currentTarget.value) })} data-testid="peek" />
            </label>
            <label class="line">
              Bots' pace{" "}
              <select value={c.botPace} onChange={(e) => set({ botPace: e.currentTarget.value })} data-testid="bot-pace">
                <option value="">the game's: throws 0.4–0.9 s after a discard, discards 0.3 s after drawing</option>
                {Object.entries(botPaces).map(([k, p]) => (
                  <option key={k} value={k}>
                    {p.name}
                  </option>
                ))}
              </select>
            </label>
            <p class="hint">The time each player has for a move is the table's (below).</p>
          </fieldset>
        )}

        {c.game === "sponsio" && (
          <fieldset>
            <legend>Rules</legend>
            <label class="line">
              Colour out of the deck{" "}
              <select value={c.removedColour} onChange={(e) => set({ removedColour: Number(e.currentTarget.value) as Colour })} data-testid="removed-colour">
                {colourNames.map(([v, n]) => (
                  <option key={v} value={v} disabled={v !== Colour.UNSPECIFIED && c.removedColour === Colour.UNSPECIFIED && !!refused.colour}>
                    {n}
                  </option>
                ))}
              </select>{" "}
              <Refusal v={c.removedColour === Colour.UNSPECIFIED ? refused.colour : undefined} id="why-colour" />
            </label>
            <p class="hint">Sponsio is played over five rounds at most: its options have no number of rounds.</p>
            <div class="choices" role="radiogroup" aria-label="coupon table">
              <label>
                <input type="radio" name="coupons" checked={!c.coupons} onChange={() => set({ coupons: null })} data-testid="coupons-standard" /> the standard
                coupon table
              </label>
              <label>
                <input type="radio" name="coupons" checked={!!c.coupons} onChange={() => set({ coupons: rowsOf(standardTable) })} disabled={!standardTable} data-testid="coupons-own" />{" "}
                a coupon table of my own (starting from the standard one)
              </label>
            </div>
            {c.coupons && <CouponEditor rows={c.coupons} onChange={(coupons) => set({ coupons })} />}
          </fieldset>
        )}

        <fieldset>
          <legend>Table</legend>
          <label class="line">
            <input type="checkbox" checked={isPublic} onChange={(e) => setPublic(e.currentTarget.checked)} data-testid="public" /> Public: listed in the
            room, anyone may join, watch and replay it
          </label>
          <label class="line">
            Time per move{" "}
            <select value={perMove} onChange={(e) => setPerMove(Number(e.currentTarget.value))} data-testid="per-move">
              {timeChoices.map(([s, n]) => (
                <option key={s} value={s}>
                  {n}
                </option>
              ))}
            </select>
          </label>
          <label class="line">
            A bot plays an absent player's seat at{" "}
            <select value={takeover} onChange={(e) => setTakeover(Number(e.currentTarget.value) as BotLevel)} data-testid="takeover">
              {seatChoices.slice(1).map(([v, n]) => (
                <option key={v} value={v}>
                  {n.replace("bot, ", "")}
                </option>
              ))}
            </select>
          </label>
        </fieldset>

        <p aria-live="polite" data-testid="verdict" class={verdict || typedErr ? "error" : ""}>
          {typedErr
            ? `This cannot be read: ${typedErr}.`
            : verdict === undefined
              ? "Asking the game…"
              : verdict
                ? `The game refuses this table: ${verdict.message} (${verdict.code})`
                : "The game accepts this table."}
        </p>
        {err && (
          <p role="alert" class="error">
            {err}
          </p>
        )}
        <button type="submit" disabled={busy || !!verdict || !!typedErr} data-testid="create">
          {allBots ? "Create and start" : "Create table"}
        </button>{" "}
        <button type="button" onClick={() => go("lobby")}>
          Back
        </button>
      </form>
    </section>
  );
}
