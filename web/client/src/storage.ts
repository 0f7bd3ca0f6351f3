// Where the client keeps its device credential and its session between runs.

/**
 * A small key-value store: the client keeps its device credential and its session in it, as JSON
 * strings. Synchronous, so that a page knows at once whether it is signed in.
 */
export interface Storage {
  get(key: string): string | null;
  set(key: string, value: string): void;
  remove(key: string): void;
}

/** memoryStorage keeps everything in memory: each new one is a new device, so a new player. */
export function memoryStorage(): Storage {
  const m = new Map<string, string>();
  return {
    get: (k) => m.get(k) ?? null,
    set: (k, v) => void m.set(k, v),
    remove: (k) => void m.delete(k),
  };
}

/** browserStorage keeps everything in the page's localStorage (or another Web Storage). */
export function browserStorage(s: globalThis.Storage = globalThis.localStorage): Storage {
  return {
    get: (k) => s.getItem(k),
    set: (k, v) => s.setItem(k, v),
    remove: (k) => s.removeItem(k),
  };
}
