// Messages as plain trees (enum values by their short names, oneofs by their case) and in words.
import type { DescEnum, DescMessage, Message } from "@bufbuild/protobuf";
import { anyUnpack, timestampDate, type Any, type Timestamp } from "@bufbuild/protobuf/wkt";
import { registry } from "./api";

export type Plain = string | number | boolean | null | Plain[] | { [k: string]: Plain };
export type PlainObj = { [k: string]: Plain };

function enumName(e: DescEnum, n: number): string {
  const v = e.values.find((x) => x.number === n);
  return v ? v.localName.toLowerCase().replace(/_/g, " ") : String(n);
}

function scalar(v: unknown): Plain {
  if (typeof v === "bigint") return Number(v);
  if (v instanceof Uint8Array) return "";
  return v as Plain;
}

function messageValue(schema: DescMessage, v: any): Plain {
  if (schema.typeName === "google.protobuf.Any") {
    const m = unpack(v as Any);
    return m ?? null;
  }
  if (schema.typeName === "google.protobuf.Timestamp") return timestampDate(v as Timestamp).toISOString();
  if (schema.typeName === "google.protobuf.Duration") return Number(v.seconds) + v.nanos / 1e9;
  return plainOf(schema, v);
}

// plainOf is msg (of schema) as a plain tree. A oneof appears as its set case: {place: {...}}.
export function plainOf(schema: DescMessage, msg: any): PlainObj {
  const out: PlainObj = {};
  for (const f of schema.fields) {
    let v: any;
    if (f.oneof) {
      const o = msg[f.oneof.localName];
      if (!o || o.case !== f.localName) continue;
      v = o.value;
    } else v = msg[f.localName];
    if (v === undefined) continue;
    switch (f.fieldKind) {
      case "scalar":
        out[f.localName] = scalar(v);
        break;
      case "enum":
        out[f.localName] = enumName(f.enum, v);
        break;
      case "message":
        out[f.localName] = messageValue(f.message, v);
        break;
      case "list":
        out[f.localName] = (v as any[]).map((x) =>
          f.listKind === "enum" ? enumName(f.enum!, x) : f.listKind === "message" ? messageValue(f.message!, x) : scalar(x),
        );
        break;
    }
  }
  return out;
}

export function unpack(a: Any | undefined): PlainObj | null {
  if (!a || !a.typeUrl) return null;
  const m = anyUnpack(a, registry) as Message | undefined;
  if (!m) return null;
  const schema = registry.getMessage(m.$typeName);
  if (!schema) return null;
  const p = plainOf(schema, m);
  p["@type"] = m.$typeName.split(".").pop() ?? m.$typeName;
  return p;
}

export function isCard(p: Plain): p is PlainObj {
  return !!p && typeof p === "object" && !Array.isArray(p) && "colour" in p && ("rank" in p || "value" in p);
}

export function cardWords(c: PlainObj): string {
  const n = c.rank ?? c.value;
  let s = `${c.colour} ${n}`;
  if (n === 13 && "faction" in c) s += " (clock bomb)"; // Sapotagem's bombs have no faction
  if (c.faction && c.faction !== "unspecified") s += ` (${c.faction})`;
  return s;
}

export function keyWords(k: string): string {
  return k.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase();
}

const seatKeys = /^(seat|owner|caller|winner|targetSeat|turn|toAct|currentSeat|turnSeat|by|from|to|connector|lastWinner|startingSeat|target)$/;

function empty(v: Plain): boolean {
  return v === false || v === "" || v === null || v === "unspecified" || (Array.isArray(v) && v.length === 0);
}

// words says p in words; seat numbers under seat-like keys become names.
export function words(p: Plain, name: (seat: number) => string, key = ""): string {
  if (p === null) return "";
  if (Array.isArray(p)) return p.map((x) => words(x, name, key)).join(", ");
  if (typeof p === "object") {
    if (isCard(p)) return cardWords(p);
    const parts: string[] = [];
    const entries = Object.entries(p as PlainObj).filter(([k, v]) => k !== "@type" && !empty(v));
    for (const [k, v] of entries) {
      if (v === true) parts.push(keyWords(k));
      else if (entries.length === 1 && typeof v === "object") parts.push(`${keyWords(k)}: ${words(v, name, k)}`);
      else parts.push(`${keyWords(k)} ${words(v, name, k)}`);
    }
    return parts.join(", ");
  }
  if (typeof p === "number" && seatKeys.test(key)) return name(p);
  return String(p);
}
