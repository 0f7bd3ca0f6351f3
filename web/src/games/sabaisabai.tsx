// sabai-sabai's table, read from the typed view: the draw and discard piles and the drawn card as
// cards, every row as face-down cards marked with who knows them, the throw window and the nose
// window as countdowns, penalties where they land. A card is thrown by clicking it, at any moment;
// the turn's moves and the effects are made by clicking the pile, the drawn card or a row's card.
import { useEffect, useMemo, useState } from "preact/hooks";
import { anyUnpack, timestampDate, type Any, type Timestamp } from "@bufbuild/protobuf/wkt";
import { ActionSchema, Effect, EventSchema, Phase, PenaltyReason, ViewSchema, type Action, type View } from "@cardroom/client/gen/cardroom/sabaisabai/v1/sabaisabai_pb";
import type { Event } from "@cardroom/client/gen/cardroom/events/v1/events_pb";
import type { Legal } from "../cards";

// cardName is a card's number in words: 1–10, the function cards by what they do, the jokers.
export function cardName(n: number): string {
  return n === 0 ? "unknown" : n <= 10 ? String(n) : ["11 peek", "12 spy", "13 give", "14 switch", "joker", "Ass Joker"][n - 11] ?? String(n);
}
const face = (n: number) => (n <= 14 ? String(n) : n === 15 ? "J" : "AJ");

const effectWords: Record<number, string> = {
  [Effect.PEEK]: "peek at one of their own cards",
  [Effect.SPY]: "spy on another player's card",
  [Effect.GIVE]: "give a card away",
  [Effect.SWITCH]: "switch a card with another player",
  [Effect.GIVE_BACK]: "give a card back",
};
const effectPrompt: Record<number, string> = {
  [Effect.PEEK]: "Peek: click one of your cards.",
  [Effect.SPY]: "Spy: click another player's card.",
  [Effect.GIVE]: "Give: click one of your cards, then the player's row to give it to.",
  [Effect.SWITCH]: "Switch: click one of your cards, then the card of another row to switch it with.",
  [Effect.GIVE_BACK]: "Give back: click the card of yours to give.",
};

const ms = (t: Timestamp | undefined) => (t ? timestampDate(t).getTime() : 0);

// useNow is the time of this render, re-rendering every step ms while until lies ahead.
function useNow(until: number, step = 100): number {
  const [, setTick] = useState(0);
  useEffect(() => {
    if (until <= Date.now()) return;
    const t = setInterval(() => {
      setTick((n) => n + 1);
      if (Date.now() > until) clearInterval(t);
    }, step);
    return () => clearInterval(t);
  }, [until]);
  return Date.now();
}

const secs = (d: number) => (d < 10_000 ? (Math.max(0, d) / 1000).toFixed(1) : String(Math.round(d / 1000))) + "s";

export function sabaiView(raw: Any | null | undefined): View | undefined {
  return raw ? (anyUnpack(raw, ViewSchema) as View | undefined) : undefined;
}

// sabaiStatus says whose turn it is and what the table waits for, in the words the seat strip
// uses: the turn seat is "to play"; a seat that may throw out of turn is told so, never "your move".
export function sabaiStatus(v: View, seat: number | undefined, canThrow: boolean, name: (n: number) => string): string {
  if (v.phase === Phase.GAME_OVER) return "the game is over";
  const e = v.effects[0];
  let s: string;
  if (v.phase === Phase.ROUND_ENDING) s = "the round ends when the nose window closes";
  else if (e) s = `${e.executor === seat ? "you" : name(e.executor)} must ${effectWords[e.effect] ?? "resolve an effect"}`;
  else if (v.turnSeat === seat) s = v.discardLandsAt ? "your discard is landing" : v.phase === Phase.DRAW ? "your turn: draw a card" : "your turn: play or keep the drawn card";
  else s = `${name(v.turnSeat)} to play`;
  if (e && v.phase !== Phase.ROUND_ENDING) s = `${v.turnSeat === seat ? "your turn" : `${name(v.turnSeat)} to play`} · ${s}`;
  if (canThrow && v.turnSeat !== seat) s += " · you may throw a card";
  return s;
}

// SabaiClock is the one countdown the status line shows, named: the nose window, a discard about
// to land, the turn timer, or the throw window.
export function SabaiClock({ v, seat, name }: { v: View; seat: number | undefined; name: (n: number) => string }) {
  const nose = v.noseWindow ? ms(v.noseDeadline) : 0;
  const lands = ms(v.discardLandsAt);
  const turn = ms(v.turnDeadline);
  const win = ms(v.throwWindowEnds);
  const now = useNow(Math.max(nose, lands, turn, win));
  const who = (s: number) => (s === seat ? "your" : `${name(s)}'s`);
  let text = "";
  if (nose > now) text = `touch your nose: ${secs(nose - now)}`;
  else if (lands > now) text = `${who(v.turnSeat)} card lands in ${secs(lands - now)}`;
  else if (win > now) text = `throw window ${secs(win - now)}`;
  else if (turn > now) text = `${v.effects[0] ? who(v.effects[0].executor) : who(v.turnSeat)} time: ${secs(turn - now)}`;
  return text ? <span data-testid="timer"> · {text}</span> : null;
}

type Move = { l: Legal; a: Action };
type Mark = { text: string; kind: string };

// marks are what happened to a slot lately (since the turn before this one): penalty cards and
// wrong throws, shown on the card they concern.
function recentMarks(events: Event[], name: (n: number) => string): Map<string, Mark> {
  const out = new Map<string, Mark>();
  let turns = 0;
  for (let i = events.length - 1; i >= 0 && i >= events.length - 60; i--) {
    const e = events[i].payload ? (anyUnpack(events[i].payload!, EventSchema) as any) : undefined;
    const k = e?.kind;
    if (!k?.case) continue;
    if (k.case === "turnStarted" && ++turns >= 2) break;
    if (k.case === "roundStarted") break;
    const set = (s: number, slot: number, m: Mark) => out.has(`${s}:${slot}`) || out.set(`${s}:${slot}`, m);
    if (k.case === "penaltyCard" && k.value.drawn)
      set(k.value.seat, k.value.slot, { kind: "penalty", text: `penalty card (${k.value.reason === PenaltyReason.NOSE ? "nose too slow" : "wrong throw"})` });
    if (k.case === "wrongThrow") for (const s of k.value.slots) set(k.value.owner, s, { kind: "wrong", text: `wrong throw by ${name(k.value.thrower)}` });
    if (k.case === "gave") set(k.value.to, k.value.toSlot, { kind: "moved", text: `given by ${name(k.value.from)}` });
  }
  return out;
}

export interface SabaiProps {
  raw: Any;
  legal: Legal[];
  act: (l: Legal) => void;
  name: (n: number) => string;
  events: Event[];
}

function Back({ small }: { small?: boolean }) {
  return <span class={`sb-back${small ? " small" : ""}`} aria-hidden="true" />;
}

export function SabaiPane({ raw, legal, act, name, events }: SabaiProps) {
  const v = useMemo(() => sabaiView(raw), [raw]);
  const moves = useMemo<Move[]>(() => legal.map((l) => ({ l, a: anyUnpack(l.action, ActionSchema) as Action })).filter((m) => !!m.a), [legal]);
  const marks = useMemo(() => recentMarks(events, name), [events, name]);
  const [first, setFirst] = useState<number | null>(null); // own slot chosen for a give or a switch
  const [throwing, setThrowing] = useState(false); // the executor of an effect chose to throw instead
  // Other moves start a two-step choice again (the same list sent again changes nothing).
  useEffect(() => (setFirst(null), setThrowing(false)), [legal.map((l) => l.text).join("\n")]);
  const win = v ? ms(v.throwWindowEnds) : 0,
    lands = v ? ms(v.discardLandsAt) : 0,
    nose = v?.noseWindow ? ms(v.noseDeadline) : 0;
  const now = useNow(Math.max(win, lands, nose));
  if (!v) return null;
  const me = v.viewer;
  const find = (f: (a: Action) => boolean) => moves.find((m) => f(m.a));
  const throwOf = (owner: number, slot: number) =>
    find((a) => a.kind.case === "throw" && a.kind.value.owner === owner && a.kind.value.slots.length === 1 && a.kind.value.slots[0] === slot);
  const draw = find((a) => a.kind.case === "draw");
  const play = find((a) => a.kind.case === "play");
  const keepOf = (slot: number) => find((a) => a.kind.case === "keep" && a.kind.value.slot === slot);
  const noseMove = find((a) => a.kind.case === "touchNose");
  const call = find((a) => a.kind.case === "callSabaiSabai");
  const resolves = moves.filter((m) => m.a.kind.case === "resolve");
  const effect = v.effects[0];
  const mine = !!effect && effect.executor === me && resolves.length > 0 && !throwing;
  const res = (m: Move) => (m.a.kind.case === "resolve" ? m.a.kind.value : null);
  // What a click on (seat, slot) does now: the effect being resolved, else a throw.
  const effectOf = (seat: number, slot: number): Move | "first" | undefined => {
    if (!mine) return undefined;
    switch (effect.effect) {
      case Effect.PEEK:
      case Effect.GIVE_BACK:
        return seat === me ? resolves.find((m) => res(m)!.ownSlot === slot) : undefined;
      case Effect.SPY:
        return resolves.find((m) => res(m)!.targetSeat === seat && res(m)!.targetSlot === slot);
      case Effect.GIVE:
        if (seat === me) return resolves.some((m) => res(m)!.ownSlot === slot) ? "first" : undefined;
        return first !== null ? resolves.find((m) => res(m)!.ownSlot === first && res(m)!.targetSeat === seat) : undefined;
      case Effect.SWITCH:
        if (seat === me) return resolves.some((m) => res(m)!.ownSlot === slot) ? "first" : undefined;
        return first !== null ? resolves.find((m) => res(m)!.ownSlot === first && res(m)!.targetSeat === seat && res(m)!.targetSlot === slot) : undefined;
    }
    return undefined;
  };
  const top = v.discardTop[v.discardTop.length - 1] ?? 0;
  const canThrow = moves.some((m) => m.a.kind.case === "throw");
  const known = (n: number) => (me >= 0 && (n >>> me) & 1) === 1;
  const knowers = (bits: number) =>
    Array.from({ length: v.seats }, (_, i) => i)
      .filter((i) => (bits >>> i) & 1)
      .filter((i) => i !== me);

  let prompt = "";
  if (mine) prompt = effectPrompt[effect.effect] ?? "";
  else if (draw) prompt = "Your turn: click the draw pile.";
  else if (play) prompt = "Click the drawn card to play it, or “swap” under one of your cards to keep it there.";
  if (canThrow) prompt += `${prompt ? " " : ""}Click a card of a row to throw it on the ${cardName(top)}.`;
  const lastCalls = v.sabaiCalled ? `sabai-sabai called by ${name(v.caller)}: the round ends after ${name(v.lastTurnSeat)}'s turn` : "";

  // Your row first, under the piles (on a phone, your cards and the discard in sight together); the
  // others after it in the order of play.
  const rows = me >= 0 ? [...v.rows.filter((r) => r.seat >= me), ...v.rows.filter((r) => r.seat < me)] : v.rows;
  return (
    <div class="game sabaisabai" data-testid="game">
      <div class="sb-facts">
        <span data-testid="round">
          round {v.round} of {v.rounds}
          {v.finalRound ? " (final: no call)" : ""}
        </span>
        {lastCalls && <span class="called">{lastCalls}</span>}
        {v.hallOfFame !== undefined && <span>{name(v.hallOfFame)} entered the Hall of Fame</span>}
      </div>
      <div class="sb-centre">
        <div class="pile">
          {draw ? (
            <button class="sb-card down target" onClick={() => act(draw.l)} aria-label={`draw a card (${v.drawSize} left)`} data-testid="draw">
              <Back />
              <span class="tag">draw</span>
            </button>
          ) : (
            <span class="sb-card down" role="img" aria-label={`draw pile: ${v.drawSize} cards`}>
              <Back />
            </span>
          )}
          <small>draw pile · {v.drawSize}</small>
        </div>
        <div class="pile discard">
          <span class="fan" role="img" aria-label={v.discardTop.length ? `discard pile, top: ${v.discardTop.map(cardName).join(", ")} (the last on top)` : "the discard pile is empty"}>
            {v.discardTop.length === 0 && <span class="sb-card empty">empty</span>}
            {v.discardTop.map((c, i) => (
              <span key={i} class={`sb-card up${i === v.discardTop.length - 1 ? " top" : ""}`} data-card={c}>
                {face(c)}
                <small>{c > 10 ? cardName(c).replace(/^\d+ /, "") : ""}</small>
              </span>
            ))}
          </span>
          <small>discards · {v.discardSize}</small>
        </div>
        {v.cardDrawn && (
          <div class="pile drawn">
            {v.drawnCard ? (
              play ? (
                <button class="sb-card up target" onClick={() => act(play.l)} aria-label={`play the drawn ${cardName(v.drawnCard)}`} data-testid="play-drawn">
                  {face(v.drawnCard)}
                  <span class="tag">play</span>
                </button>
              ) : (
                <span class="sb-card up" role="img" aria-label={`your drawn card: ${cardName(v.drawnCard)}`}>
                  {face(v.drawnCard)}
                </span>
              )
            ) : (
              <span class="sb-card down" role="img" aria-label={`${name(v.turnSeat)}'s drawn card`}>
                <Back />
              </span>
            )}
            <small>{v.turnSeat === me ? "you drew" : `${name(v.turnSeat)} drew`}</small>
          </div>
        )}
        <div class="windows">
          {win > now && (
            <div class="countdown" data-testid="throw-window">
              throw window <b>{secs(win - now)}</b>
              <span class="bar" style={{ width: `${Math.min(100, ((win - now) / 1000) * 100)}%` }} />
            </div>
          )}
          {lands > now && (
            <div class="countdown">
              {v.turnSeat === me ? "your" : `${name(v.turnSeat)}'s`} card lands in <b>{secs(lands - now)}</b>
            </div>
          )}
          {noseMove ? (
            <button class="target nose" onClick={() => act(noseMove.l)} data-testid="nose">
              Touch your nose {nose > now && <b>{secs(nose - now)}</b>}
            </button>
          ) : (
            v.noseWindow && nose > now && <div class="countdown">nose window {secs(nose - now)}</div>
          )}
          {call && (
            <button class="call" onClick={() => act(call.l)} data-testid="call">
              Call sabai-sabai
            </button>
          )}
        </div>
      </div>
      <p class="sb-prompt" aria-live="polite">
        <span data-testid="prompt">{prompt}</span>{" "}
        {effect && effect.executor === me && resolves.length > 0 && canThrow && (
          <button onClick={() => setThrowing(!throwing)} data-testid="throw-instead">
            {throwing ? "back to the effect" : "throw instead"}
          </button>
        )}{" "}
        {first !== null && (
          <button onClick={() => setFirst(null)} data-testid="cancel">
            cancel
          </button>
        )}
      </p>
      <div class="sb-rows">
        {rows.map((r) => {
          const seat = r.seat;
          const giveTo = mine && effect.effect === Effect.GIVE && first !== null && seat !== me ? effectOf(seat, 0) : undefined;
          return (
            <div key={seat} class={`sb-row${seat === v.turnSeat ? " turn" : ""}${seat === me ? " mine" : ""}`} data-seat={seat}>
              <div class="who">
                {giveTo && giveTo !== "first" ? (
                  <button class="target" onClick={() => act(giveTo.l)} data-testid="give-to">
                    give to {name(seat)}
                  </button>
                ) : (
                  <b>{name(seat)}</b>
                )}
                {seat === v.turnSeat && <span class="to-play"> · to play</span>}
                <span class="vp">{r.victoryPoints} victory point{r.victoryPoints === 1 ? "" : "s"}</span>
                {r.throwLocked && <span class="locked">locked out of throwing</span>}
                {v.noseWindow && r.touchedNose && <span class="nosed">touched nose</span>}
              </div>
              <div class="slots">
                {r.slots.map((s, i) => {
                  if (s.empty) return <span key={i} class="sb-card gone" aria-label={`${name(seat)}'s place ${i + 1}: empty`} role="img" />;
                  const mark = marks.get(`${seat}:${i}`);
                  const others = knowers(s.knownBy);
                  const youKnow = s.card !== 0;
                  const label = [
                    `${name(seat)}'s card ${i + 1}`,
                    youKnow ? `${known(s.knownBy) ? "you know" : "shown"}: ${cardName(s.card)}${s.card > 14 ? `, ${face(s.card)}` : ""}` : "face down",
                    ...others.map((o) => `${name(o)} knows it`),
                    ...(mark ? [mark.text] : []),
                  ].join("; ");
                  const eff = effectOf(seat, i);
                  const th = mine ? undefined : throwOf(seat, i);
                  const onClick =
                    eff === "first" ? () => setFirst(first === i ? null : i) : eff ? () => act(eff.l) : th ? () => act(th.l) : undefined;
                  const verb = eff === "first" ? "choose" : eff ? "use" : "throw";
                  // The card's number is its visible text, and in its accessible name (axe: the visible
                  // text is in the name); the small words and chips, which the name says in full, are
                  // drawn by CSS from data-text, not text of the button.
                  const body = (
                    <>
                      <Back small={youKnow} />
                      {youKnow && <span class="known">{face(s.card)}</span>}
                      {youKnow && <small class="you-know" aria-hidden="true" data-text={known(s.knownBy) ? "you know" : "shown"} />}
                      {others.length > 0 && (
                        <span class="knowers" aria-hidden="true">
                          {others.map((o) => (
                            <i key={o} title={`${name(o)} knows it`} data-text={initials(name(o))} />
                          ))}
                        </span>
                      )}
                      {mark && <span class={`mark ${mark.kind}`} aria-hidden="true" data-text={mark.kind === "penalty" ? "penalty" : mark.kind === "wrong" ? "wrong throw" : "given"} />}
                    </>
                  );
                  const match = youKnow && s.card === top && !!th;
                  return (
                    <span key={i} class="slot">
                      {onClick ? (
                        <button
                          class={`sb-card down hot${first === i && seat === me ? " picked" : ""}`}
                          aria-label={`${verb}: ${label}`}
                          title={label}
                          onClick={onClick}
                          data-owner={seat}
                          data-slot={i}
                          data-kind={eff ? "effect" : "throw"}
                          data-match={match ? "1" : undefined}
                        >
                          {body}
                        </button>
                      ) : (
                        <span class="sb-card down" role="img" aria-label={label} title={label} data-owner={seat} data-slot={i}>
                          {body}
                        </span>
                      )}
                      {seat === me && play && keepOf(i) && (
                        <button class="swap" onClick={() => act(keepOf(i)!.l)} aria-label={`keep the drawn card in place of your card ${i + 1}`} data-testid="keep">
                          swap
                        </button>
                      )}
                    </span>
                  );
                })}
              </div>
            </div>
          );
        })}
      </div>
    </div>
  );
}

function initials(n: string): string {
  const w = n.replace(/\s*\(you\)$/, "").split(/\s+/);
  return w.length > 1 && w[0] === "Bot" ? w[1].slice(0, 2) : w[0].slice(0, 2);
}
