// Sponsio's coupon-table editor on the table-creation screen. It starts from the standard table as
// the game gives it (ListGames' default options, never a copy in the client) and edits each coupon's
// kind, colour and options; each coupon's options are written as "min-max ×odds" items ("0-1 ×2,
// 2 ×3, 3-9 ×5"). The editor only reads what is typed; whether the game deals with the table is the
// engine's word (CheckTableOptions), shown by the screen like every other refusal.
import { create } from "@bufbuild/protobuf";
import {
  BetOptionSchema,
  Colour,
  CouponKind,
  CouponSchema,
  CouponTableSchema,
  type BetOption,
  type Coupon,
  type CouponTable,
} from "@cardroom/client/gen/cardroom/sponsio/v1/sponsio_pb";
import { roman } from "./games/sponsio";

// CouponRow is a coupon as the form holds it: its options as the text typed.
export interface CouponRow {
  number: number;
  kind: CouponKind;
  colour: Colour;
  options: string;
}

const kindNames: [CouponKind, string][] = [
  [CouponKind.COLOUR_COUNT, "cards of a colour in the tricks taken"],
  [CouponKind.TRICKS, "tricks taken"],
  [CouponKind.MOST_TRICKS, "the most tricks (0: no, 1: yes)"],
  [CouponKind.LAST_TRICK, "the last trick (0: no, 1: yes)"],
  [CouponKind.NINES, "the 9s (0: none played, 1: all took, 2: one lost)"],
  [CouponKind.COUNTER_BET, "counter-bet (an opponent loses a bet)"],
];

const colours: [Colour, string][] = [
  [Colour.GREEN, "green"],
  [Colour.YELLOW, "yellow"],
  [Colour.BLUE, "blue"],
  [Colour.RED, "red"],
];

const optionText = (o: BetOption) => `${o.min === o.max ? o.min : `${o.min}-${o.max}`} ×${o.odds}`;

// rowsOf turns a coupon table into the form's rows.
export function rowsOf(t: CouponTable | undefined): CouponRow[] {
  return (t?.coupons ?? []).map((c: Coupon) => ({ number: c.number, kind: c.kind, colour: c.colour, options: c.options.map(optionText).join(", ") }));
}

// parseOptions reads "0-1 ×2, 2 ×3" (x or × for the odds); it returns the options or what is wrong.
export function parseOptions(text: string): BetOption[] | string {
  const out: BetOption[] = [];
  for (const item of text.split(",")) {
    const s = item.trim();
    if (!s) continue;
    const m = /^(\d+)\s*(?:[-–]\s*(\d+))?\s*[x×]\s*(\d+)$/.exec(s);
    if (!m) return `"${s}" is not "min-max ×odds" (or "n ×odds")`;
    const min = Number(m[1]);
    out.push(create(BetOptionSchema, { min, max: m[2] === undefined ? min : Number(m[2]), odds: Number(m[3]) }));
  }
  return out.length ? out : "no option";
}

// tableOf turns the rows into the options' coupon table, or says which coupon cannot be read.
export function tableOf(rows: CouponRow[]): CouponTable | string {
  const coupons: Coupon[] = [];
  for (const r of rows) {
    const options = parseOptions(r.options);
    if (typeof options === "string") return `coupon ${roman(r.number)}: ${options}`;
    const colour = r.kind === CouponKind.COLOUR_COUNT ? r.colour || Colour.GREEN : Colour.UNSPECIFIED;
    coupons.push(create(CouponSchema, { number: r.number, kind: r.kind, colour, options }));
  }
  return create(CouponTableSchema, { coupons });
}

export function CouponEditor({ rows, onChange }: { rows: CouponRow[]; onChange: (rows: CouponRow[]) => void }) {
  const set = (i: number, p: Partial<CouponRow>) => onChange(rows.map((r, j) => (j === i ? { ...r, ...p } : r)));
  return (
    <table class="coupon-editor" data-testid="coupon-editor">
      <caption>Each coupon: what its bets measure, and its options as "min-max ×odds" (a won bet pays odds × stake)</caption>
      <thead>
        <tr>
          <th scope="col">Coupon</th>
          <th scope="col">Measures</th>
          <th scope="col">Options</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r, i) => {
          const bad = parseOptions(r.options);
          const name = `coupon ${roman(r.number)}`;
          return (
            <tr key={r.number}>
              <th scope="row">{roman(r.number)}</th>
              <td>
                <select aria-label={`what ${name} measures`} value={r.kind} onChange={(e) => set(i, { kind: Number(e.currentTarget.value) as CouponKind })} data-testid={`coupon-kind-${r.number}`}>
                  {kindNames.map(([k, n]) => (
                    <option key={k} value={k}>
                      {n}
                    </option>
                  ))}
                </select>
                {r.kind === CouponKind.COLOUR_COUNT && (
                  <select aria-label={`${name}'s colour`} value={r.colour || Colour.GREEN} onChange={(e) => set(i, { colour: Number(e.currentTarget.value) as Colour })} data-testid={`coupon-colour-${r.number}`}>
                    {colours.map(([c, n]) => (
                      <option key={c} value={c}>
                        {n}
                      </option>
                    ))}
                  </select>
                )}
              </td>
              <td>
                <input
                  aria-label={`${name}'s options`}
                  value={r.options}
                  onInput={(e) => set(i, { options: e.currentTarget.value })}
                  aria-invalid={typeof bad === "string"}
                  aria-describedby={typeof bad === "string" ? `why-coupon-${r.number}` : undefined}
                  data-testid={`coupon-options-${r.number}`}
                />
                {typeof bad === "string" && (
                  <span class="refusal" id={`why-coupon-${r.number}`}>
                    {bad}
                  </span>
                )}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
