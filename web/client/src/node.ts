// Node only: a Storage in a JSON file. Import it from "@cardroom/client/node".
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { Storage } from "./storage.js";

/**
 * fileStorage keeps the client's keys in a JSON file at path, readable by its owner only (mode
 * 0600; its directory made with mode 0700): the device credential in it signs in as the player.
 * Each change replaces the file whole (a temporary file renamed over it).
 */
export function fileStorage(path: string): Storage {
  const read = (): Record<string, string> => {
    try {
      return JSON.parse(readFileSync(path, "utf8")) as Record<string, string>;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return {};
      throw new Error(`${path}: ${(e as Error).message}`, { cause: e });
    }
  };
  const write = (m: Record<string, string>) => {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(m, null, 2) + "\n", { mode: 0o600 });
    renameSync(tmp, path);
  };
  return {
    get: (k) => read()[k] ?? null,
    set: (k, v) => write({ ...read(), [k]: v }),
    remove: (k) => {
      const m = read();
      delete m[k];
      write(m);
    },
  };
}
