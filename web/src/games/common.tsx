// What every game's table shares: the props a pane gets, a fact of the table in words, and small
// readers of the view's plain tree.
import type { Any } from "@bufbuild/protobuf/wkt";
import type { Choose, Legal } from "../cards";
import type { Event } from "@cardroom/client/gen/cardroom/events/v1/events_pb";
import type { PlainObj } from "../plain";

export interface PaneProps {
  view: PlainObj;
  // name says a seat in words: its player's name, "(you)" for the viewer's own.
  name: (n: number) => string;
  legal: Legal[];
  pick: string | null;
  choose: Choose;
  // act makes one legal move at once (a pane that builds a move in steps).
  act?: (l: Legal) => void;
  // The game's events so far, unpacked (a pane may draw a history from them); in order.
  history?: PlainObj[];
  // The view as the gateway sent it (the tables that read it typed: Saboteur, sabai-sabai).
  raw?: Any;
  // The game's events so far, as sent (sabai-sabai marks the cards they touched lately).
  events?: Event[];
}

export const list = (v: unknown) => (Array.isArray(v) ? (v as PlainObj[]) : []);
export const num = (v: unknown) => (typeof v === "number" ? v : 0);
export const has = (v: unknown) => v !== undefined && v !== null && v !== "" && v !== "unspecified";

export function Fact({ k, children }: { k: string; children: any }) {
  return (
    <div>
      <dt>{k}</dt>
      <dd>{children}</dd>
    </div>
  );
}

// The games' names as people write them.
export const gameNames: Record<string, string> = {
  sabaisabai: "sabai-sabai",
  saboteur: "Saboteur 2",
  sapotagem: "Sapotagem",
  sponsio: "Sponsio",
};

export const gameName = (g: string) => gameNames[g] ?? g;
