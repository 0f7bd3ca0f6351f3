// Retries: the backoff between tries, which errors leave a call's fate unknown (so that the same
// request may be sent again), and the refusals' stable codes.
import { Code, ConnectError } from "@connectrpc/connect";
import { RuleViolationSchema } from "./gen/cardroom/game/v1/game_pb.js";

/**
 * An exponential backoff: `first` ms, then each pause `factor` times the last, at most `max` ms,
 * each shortened by up to `jitter` of itself at random (so that many clients cut at once do not
 * come back at once).
 */
export interface Backoff {
  first: number;
  max: number;
  factor: number;
  jitter: number;
}

/** 250 ms doubling up to 5 s, with a fifth of jitter. */
export const defaultBackoff: Backoff = { first: 250, max: 5000, factor: 2, jitter: 0.2 };

/** Pauses counts the pauses of one run of tries. */
export class Pauses {
  private next: number;
  constructor(private readonly b: Backoff) {
    this.next = b.first;
  }
  /** reset starts over (after a success). */
  reset(): void {
    this.next = this.b.first;
  }
  /** wait pauses for the next pause's length; it rejects with the signal's reason when aborted. */
  wait(signal?: AbortSignal): Promise<void> {
    let d = this.next;
    if (this.b.jitter > 0) d -= Math.random() * this.b.jitter * d;
    this.next = Math.min(this.next * Math.max(this.b.factor, 1), this.b.max);
    return sleep(d, signal);
  }
}

/** sleep resolves after ms, or rejects with the signal's reason when it is aborted first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const done = () => {
      signal?.removeEventListener("abort", abort);
      resolve();
    };
    const t = setTimeout(done, ms);
    const abort = () => {
      clearTimeout(t);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", abort, { once: true });
  });
}

/**
 * isRetryable reports whether err leaves it unknown whether the call was applied, so that the same
 * request may be sent again: UNAVAILABLE (the connection was lost, the gateway was going away),
 * DEADLINE_EXCEEDED (no answer in time), or a connection lost under fetch (connect-web reports
 * fetch's TypeError, "fetch failed" or "Failed to fetch", as UNKNOWN).
 */
export function isRetryable(err: unknown): boolean {
  const ce = ConnectError.from(err);
  return ce.code === Code.Unavailable || ce.code === Code.DeadlineExceeded || isConnectionLost(ce);
}

/** isConnectionLost reports whether err is fetch's failure to reach the server (or to hear its answer). */
export function isConnectionLost(err: unknown): boolean {
  const ce = ConnectError.from(err);
  return ce.code === Code.Unknown && (ce.cause instanceof TypeError || err instanceof TypeError);
}

/** violationCode is a refusal's stable code ("STALE_VERSION", "NOT_YOUR_TURN", …), or "". */
export function violationCode(err: unknown): string {
  return ConnectError.from(err).findDetails(RuleViolationSchema)[0]?.code ?? "";
}

/**
 * isStale reports whether an action was refused because the table had moved on from the version it
 * was chosen at (ABORTED, STALE_VERSION): nothing happened, and the Watch stream brings the new
 * choices.
 */
export function isStale(err: unknown): boolean {
  const ce = ConnectError.from(err);
  return ce.code === Code.Aborted && violationCode(ce) !== "CONTENTION";
}

/** newId is prefix and 24 random hex digits: an action id, a request id. */
export function newId(prefix: string): string {
  return prefix + randomHex(12);
}

/** randomHex is n random bytes in hex. */
export function randomHex(n: number): string {
  const b = new Uint8Array(n);
  crypto.getRandomValues(b);
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

/** randomBase64url is n random bytes in base64url without padding. */
export function randomBase64url(n: number): string {
  const b = new Uint8Array(n);
  crypto.getRandomValues(b);
  return btoa(String.fromCharCode(...b)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}
