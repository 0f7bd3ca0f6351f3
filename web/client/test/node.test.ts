import { expect, test } from "vitest";
import { mkdtempSync, statSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileStorage } from "../src/node.js";

test("fileStorage keeps keys in a file only its owner reads, across instances", () => {
  const path = join(mkdtempSync(join(tmpdir(), "cardroom-")), "dir", "bot.json");
  const a = fileStorage(path);
  expect(a.get("cardroom.device")).toBeNull();
  a.set("cardroom.device", '{"deviceId":"d","secret":"s"}');
  a.set("cardroom.session", "x");
  a.remove("cardroom.session");
  const b = fileStorage(path);
  expect(b.get("cardroom.device")).toBe('{"deviceId":"d","secret":"s"}');
  expect(b.get("cardroom.session")).toBeNull();
  expect(statSync(path).mode & 0o777).toBe(0o600);
  expect(JSON.parse(readFileSync(path, "utf8"))).toEqual({ "cardroom.device": '{"deviceId":"d","secret":"s"}' });
});
