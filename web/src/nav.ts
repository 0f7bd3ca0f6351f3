// What every screen shares: moving to another screen, and saying a failed call's error in words.
import { ConnectError, Code } from "@connectrpc/connect";
import { RuleViolationSchema } from "@cardroom/client/gen/cardroom/game/v1/game_pb";

// go moves to a screen (kept in the URL's hash, and so across reloads).
export function go(screen: string, id = "") {
  location.hash = id ? `#/${screen}/${encodeURIComponent(id)}` : `#/${screen}`;
}

// errorText is a failed call's error as a person reads it: the gateway's refusal with its code,
// or what kept the request from the server.
export function errorText(e: unknown): string {
  const ce = ConnectError.from(e);
  const v = ce.findDetails(RuleViolationSchema)[0];
  if (v) return `${v.message} (${v.code})`;
  // A request that never reached the server: said as a person would.
  if (ce.code === Code.Unavailable || ce.code === Code.Unknown || /fetch|network/i.test(ce.rawMessage))
    return navigator.onLine ? "the server could not be reached" : "this device is offline";
  if (ce.code === Code.DeadlineExceeded) return "the server took too long to answer";
  return `${ce.rawMessage} (${Code[ce.code]})`;
}
