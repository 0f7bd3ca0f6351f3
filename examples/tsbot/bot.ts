// tsbot sits at a cardroom table and plays any game to its end by its labelled choices.
// Usage: node dist/bot.js [--addr http://127.0.0.1:7070] [--game sapotagem | --join INVITE] [--name tsbot]
import { parseArgs } from "node:util";
import { createConnectTransport } from "@connectrpc/connect-web";
import { CardroomClient, isStale, violationCode } from "@cardroom/client";
import { fileStorage } from "@cardroom/client/node";

const { values: o } = parseArgs({
  options: {
    addr: { type: "string", default: "http://127.0.0.1:7070" }, // the gateway (make run)
    game: { type: "string", default: "sapotagem" }, // queue for it; bots fill the table after the wait
    join: { type: "string", default: "" }, // or take a place at a private table by its invite code
    name: { type: "string", default: "tsbot" }, // its device credential is kept in NAME.credential.json
  },
});
const stop = new AbortController();
process.on("SIGINT", () => stop.abort());

// Node 20's fetch speaks the Connect protocol over HTTP/1.1, which the gateway's port answers.
const transport = createConnectTransport({ baseUrl: o.addr!, useBinaryFormat: true });
const client = new CardroomClient({ transport, storage: fileStorage(`${o.name}.credential.json`) });
await client.signInDevice(o.name);
const table = o.join ? await client.joinTable(o.join) : await client.queue({ game: o.game, botsMayFill: true }, { signal: stop.signal });
console.log("at table", table.id);

let moves = 0;
for await (const u of table.watch({ signal: stop.signal })) {
  for (const e of u.events) console.log(e.label);
  const c = u.choices;
  if (!c || c.actions.length === 0) continue;
  const i = Math.floor(Math.random() * c.actions.length);
  try {
    await table.choose(i, c); // at the choices' version: stale if another move came first
    moves++;
  } catch (e) {
    // A stale choice changed nothing: the stream brings the new ones. Anything else is said.
    if (!isStale(e)) console.log("refused:", c.labels[i], violationCode(e) || String(e));
  }
}
console.log(table.finished ? `finished after ${moves} moves: ${table.finished.outcome?.summary ?? ""}` : "stopped");
