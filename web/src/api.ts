// The gateway's public API over the Connect protocol (connect-es), from the page's own origin, and
// the session kept in localStorage.
import { Code, ConnectError, createClient, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import { createRegistry } from "@bufbuild/protobuf";
import { GatewayService, file_cardroom_gateway_v1_gateway } from "./gen/cardroom/gateway/v1/gateway_pb";
import { file_cardroom_events_v1_events } from "./gen/cardroom/events/v1/events_pb";
import { file_cardroom_game_v1_game } from "./gen/cardroom/game/v1/game_pb";
import { file_cardroom_sapotagem_v1_sapotagem } from "./gen/cardroom/sapotagem/v1/sapotagem_pb";
import { file_cardroom_sponsio_v1_sponsio } from "./gen/cardroom/sponsio/v1/sponsio_pb";
import { file_cardroom_saboteur_v1_saboteur } from "./gen/cardroom/saboteur/v1/saboteur_pb";
import { file_cardroom_sabaisabai_v1_sabaisabai } from "./gen/cardroom/sabaisabai/v1/sabaisabai_pb";

export interface Session {
  token: string;
  playerId: string;
  name: string;
  expires: number; // ms since the epoch
}

const SESSION_KEY = "cardroom.session";

export function loadSession(): Session | null {
  try {
    const s = JSON.parse(localStorage.getItem(SESSION_KEY) ?? "null") as Session | null;
    return s && s.token && s.expires > Date.now() ? s : null;
  } catch {
    return null;
  }
}

let token = loadSession()?.token ?? "";

export function saveSession(s: Session | null) {
  token = s?.token ?? "";
  if (s) {
    localStorage.setItem(SESSION_KEY, JSON.stringify(s));
    if (s.name) localStorage.setItem("cardroom.name", s.name);
  }
  else localStorage.removeItem(SESSION_KEY);
}

const auth: Interceptor = (next) => async (req) => {
  if (token) req.header.set("Authorization", "Bearer " + token);
  return next(req);
};

export const transport = createConnectTransport({
  baseUrl: location.origin,
  useBinaryFormat: true,
  interceptors: [auth],
});

export const api = createClient(GatewayService, transport);

// Every message a table's Any fields may carry: the events envelope and the four games.
export const registry = createRegistry(
  file_cardroom_gateway_v1_gateway,
  file_cardroom_events_v1_events,
  file_cardroom_game_v1_game,
  file_cardroom_sapotagem_v1_sapotagem,
  file_cardroom_sponsio_v1_sponsio,
  file_cardroom_saboteur_v1_saboteur,
  file_cardroom_sabaisabai_v1_sabaisabai,
);

// The browser's device credential (SignIn's DeviceCredential), made once and kept: every sign-in
// from this browser is the same player, even after the session token expired.
export interface Device {
  deviceId: string;
  secret: string;
}

const DEVICE_KEY = "cardroom.device";

function randomText(n: number): string {
  const b = new Uint8Array(n);
  crypto.getRandomValues(b);
  return btoa(String.fromCharCode(...b)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function device(): Device {
  try {
    const d = JSON.parse(localStorage.getItem(DEVICE_KEY) ?? "null") as Device | null;
    if (d && d.deviceId && d.secret) return d;
  } catch {
    // a new one below
  }
  const d = { deviceId: "web-" + randomText(18), secret: randomText(32) };
  localStorage.setItem(DEVICE_KEY, JSON.stringify(d));
  return d;
}

// signIn signs in as this browser's device (a new player the first time), named name ("" keeps
// the name the player has).
export async function signIn(name: string): Promise<Session> {
  const r = await api.signIn({ displayName: name, credential: { case: "device", value: device() } });
  const s: Session = {
    token: r.sessionToken,
    playerId: r.playerId,
    name: name || (loadSession()?.name ?? ""),
    expires: r.expiresAt ? Number(r.expiresAt.seconds) * 1000 : Date.now() + 3600e3,
  };
  saveSession(s);
  localStorage.removeItem(SIGNED_OUT_KEY);
  return s;
}

const SIGNED_OUT_KEY = "cardroom.signedOut";

// signOutEverywhere revokes the session on the gateway (SignOut: its tokens are refused by every
// replica from then on) and forgets it here. A gateway that cannot be reached does not keep the
// player signed in: the page forgets the session all the same, and the token expires.
export async function signOutEverywhere() {
  try {
    await api.signOut({});
  } catch {
    // forgotten below all the same
  }
  saveSession(null);
  localStorage.setItem(SIGNED_OUT_KEY, "1");
}

// signedOut reports whether the player signed out on this browser since the last sign-in: a
// return visit then asks for a sign-in rather than resuming as this browser's device.
export function signedOut(): boolean {
  return localStorage.getItem(SIGNED_OUT_KEY) === "1";
}

export function lastName(): string {
  return localStorage.getItem("cardroom.name") ?? "";
}

export function newActionId(): string {
  const b = new Uint8Array(12);
  crypto.getRandomValues(b);
  return "web-" + Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

// once makes a call that creates something (CreateTable, EnqueueTicket) with one new request id,
// trying again with the same id when the answer was lost on the way (UNAVAILABLE, or no answer
// in time): the gateway applies the id once, so a retry answers what the first call made.
export async function once<T>(call: (requestId: string) => Promise<T>): Promise<T> {
  const id = newActionId();
  for (let attempt = 0; ; attempt++) {
    try {
      return await call(id);
    } catch (e) {
      const c = ConnectError.from(e).code;
      if (attempt >= 3 || (c !== Code.Unavailable && c !== Code.DeadlineExceeded)) throw e;
      await new Promise((r) => setTimeout(r, 250 * 2 ** attempt));
    }
  }
}
