// The replay: the table drawn at each step from the spectator's view the replay carries
// (GetReplay with include_views), stepped forward and back, with the step's events in words beside.
import { useEffect, useMemo, useState } from "preact/hooks";
import { ConnectError, Code } from "@connectrpc/connect";
import { api } from "./api";
import type { Any } from "@bufbuild/protobuf/wkt";
import type { Event } from "@cardroom/client/gen/cardroom/events/v1/events_pb";
import type { TableSummary } from "@cardroom/client/gen/cardroom/game/v1/game_pb";
import { gameName, type PaneProps } from "./games";
import { EventLog, Result, Seats, sayer, seatNamer, unpackCached } from "./main";
import { errorText } from "./nav";
import { unpack, type PlainObj } from "./plain";

interface Step {
  who: string;
  events: Event[];
  view: PlainObj | null;
  raw: Any | undefined; // the view as sent, for the tables that read it typed
}

export function Replay({ id, paneFor }: { id: string; paneFor: (game: string, props: PaneProps) => any }) {
  const [steps, setSteps] = useState<Step[]>([]);
  const [summary, setSummary] = useState<TableSummary | null>(null);
  const [i, setI] = useState(0);
  const [err, setErr] = useState("");
  const [tooLong, setTooLong] = useState(false);
  useEffect(() => {
    // A long game's views may be more than the browser protocols pass in one answer (the gateway's
    // buffer of a message, resource_exhausted): the replay is then asked again without them, and
    // says its steps in words only.
    api
      .getReplay({ tableId: id, includeViews: true })
      .catch((e) => {
        if (ConnectError.from(e).code !== Code.ResourceExhausted) throw e;
        setTooLong(true);
        return api.getReplay({ tableId: id });
      })
      .then(
        (r) => {
          setSummary(r.table ?? null);
          const name = seatNamer(r.table ?? null, undefined);
          const s: Step[] = [{ who: "the deal", events: r.createdEvents, view: unpack(r.createdView), raw: r.createdView }];
          for (const e of r.entries) {
            const who = e.by.case === "seat" ? name(e.by.value) : e.by.case === "timeout" ? "the clock (time ran out)" : "the table was stopped";
            s.push({ who, events: e.events, view: unpack(e.view), raw: e.view });
          }
          setSteps(s);
        },
        (e) => setErr(errorText(e)),
      );
  }, [id]);
  const last = Math.max(steps.length - 1, 0);
  useEffect(() => {
    const f = (e: KeyboardEvent) => {
      if (e.target instanceof HTMLInputElement) return;
      if (e.key === "ArrowRight") setI((x) => Math.min(x + 1, last));
      if (e.key === "ArrowLeft") setI((x) => Math.max(x - 1, 0));
      if (e.key === "Home") setI(0);
      if (e.key === "End") setI(last);
    };
    addEventListener("keydown", f);
    return () => removeEventListener("keydown", f);
  }, [last]);
  const game = summary?.config?.game ?? "";
  const name = useMemo(() => seatNamer(summary, undefined), [summary]);
  const step = steps[i];
  const say = useMemo(() => sayer(game, name, step?.view ?? null), [game, name, step?.view]);
  const seen = useMemo(() => steps.slice(0, i + 1).flatMap((s) => s.events), [steps, i]);
  const pane = useMemo(() => {
    if (!step?.view) return null;
    const history = seen.map((e) => unpackCached(e.payload)).filter((p): p is PlainObj => !!p);
    return paneFor(game, { view: step.view, raw: step.raw, name, legal: [], pick: null, choose: () => undefined, history, events: seen });
  }, [step, game, name]);
  const outcome = summary?.outcome;
  const said = step ? step.events.map(say).filter((x) => x) : [];
  return (
    <section class="replay" data-game={game}>
      <h1>Replay of {gameName(game) || "a table"}</h1>
      {err && (
        <p role="alert" class="error">
          {err} <a href="#/lobby">Back to the games</a>
        </p>
      )}
      <Seats summary={summary} />
      <div class="stepper" role="group" aria-label="replay steps">
        <button onClick={() => setI(0)} disabled={i === 0}>
          first
        </button>
        <button onClick={() => setI(Math.max(i - 1, 0))} data-testid="replay-prev" disabled={i === 0}>
          ← back
        </button>
        <span data-testid="step-count">
          step {i} of {last}
        </span>
        <button onClick={() => setI(Math.min(i + 1, last))} data-testid="replay-next" disabled={i >= last}>
          forward →
        </button>
        <button onClick={() => setI(last)} disabled={i >= last}>
          last
        </button>
        <input type="range" min={0} max={last} value={i} onInput={(e) => setI(Number(e.currentTarget.value))} aria-label="step" />
      </div>
      <div class="replay-body">
        <div class="replay-table">{pane ?? (steps.length > 0 && <p class="none">{tooLong ? "This game is too long for its tables to be sent to the browser: its steps are said in words." : "This step has no table to draw."}</p>)}</div>
        <aside class="replay-step" aria-live="polite">
          <h2>This step</h2>
          <p data-testid="step">
            <b>{step?.who}</b>
            {step && i > 0 && step.events.length === 0 ? ": no event" : ""}
          </p>
          <ul data-testid="step-events">
            {said.map((t, k) => (
              <li key={k}>{t}</li>
            ))}
          </ul>
        </aside>
      </div>
      {outcome && i === last && steps.length > 0 && <Result outcome={outcome} name={name} id={id} />}
      <EventLog events={seen} say={say} title="Everything so far" />
    </section>
  );
}

