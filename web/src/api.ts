// The gateway's public API over the Connect protocol (connect-es), from the page's own origin,
// through the client package (@cardroom/client, web/client): the session and the browser's device
// credential kept in localStorage, the session refreshed before it expires, retries under one id.
import { createConnectTransport } from "@connectrpc/connect-web";
import { CardroomClient, browserStorage, type Session } from "@cardroom/client";

export type { Session } from "@cardroom/client";
export { registry } from "@cardroom/client";

export const transport = createConnectTransport({ baseUrl: location.origin, useBinaryFormat: true });

// The player's client: the device credential (SignIn's DeviceCredential, made once and kept: every
// sign-in from this browser is the same player, even after the session token expired) and the
// session, under the keys "cardroom.device" and "cardroom.session".
export const cardroom = new CardroomClient({ transport, storage: browserStorage(), devicePrefix: "web-", idPrefix: "web-", attempts: 4 });

// Every call carries the session's token.
export const api = cardroom.api;

export function loadSession(): Session | null {
  return cardroom.session;
}

export function saveSession(s: Session | null) {
  cardroom.setSession(s);
  if (s?.name) localStorage.setItem("cardroom.name", s.name);
}

// signIn signs in as this browser's device (a new player the first time), named name ("" keeps
// the name the player has).
export async function signIn(name: string): Promise<Session> {
  const s = await cardroom.signInDevice(name);
  if (s.name) localStorage.setItem("cardroom.name", s.name);
  localStorage.removeItem(SIGNED_OUT_KEY);
  return s;
}

const SIGNED_OUT_KEY = "cardroom.signedOut";

// signOutEverywhere revokes the session on the gateway (SignOut: its tokens are refused by every
// replica from then on) and forgets it here. A gateway that cannot be reached does not keep the
// player signed in: the page forgets the session all the same, and the token expires.
export async function signOutEverywhere() {
  try {
    await cardroom.signOut();
  } catch {
    // forgotten all the same
  }
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
  return cardroom.newId();
}

// once makes a call that creates something (CreateTable, EnqueueTicket) with one new request id,
// trying again with the same id when the answer was lost on the way (UNAVAILABLE, or no answer
// in time): the gateway applies the id once, so a retry answers what the first call made.
export function once<T>(call: (requestId: string) => Promise<T>): Promise<T> {
  return cardroom.once((requestId) => call(requestId));
}
