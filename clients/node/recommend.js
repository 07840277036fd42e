#!/usr/bin/env node
// @ts-check
// Asks a fagin server for a move in a new Kids of London game and prints it, with the
// search's statistics for every legal action (docs/API.md, "TypeScript and JavaScript"), through
// @fagin/client (clients/ts), the typed client generated from the .proto files.  With
// --stream, a longer search (20,000 iterations) is asked for with StreamRecommend (over
// gRPC-Web): a line per progress report as it runs, then the final answer, the one Recommend
// gives for the same request.
//
//   npm ci && node recommend.js [--stream] [URL]      (default http://127.0.0.1:8080)
//
// URL is the server's HTTP port (fagin serve --http-port).  Environment: FAGIN_AUTH_TOKEN, a
// bearer token (sent only over https: or to a loopback address: in plaintext on a network it
// could be read and replayed).  For a server whose certificate a private CA signed, give Node
// the CA: NODE_EXTRA_CA_CERTS=ca.pem.  `npm run typecheck` checks this file against the
// client's types (tsc, checkJs).
import { Code, ConnectError, StopReason, codeToString, createFaginClient } from "@fagin/client";

/** @typedef {import("@fagin/client").Recommendation} Recommendation */

/** Prints a recommendation: the move, the search's figures, a row per legal action.
 * @param {Recommendation} rec */
function print(rec) {
  if (!rec.action || !rec.settings) throw new Error("the answer holds no action");
  console.log(`recommended for seat ${rec.seat}: ${rec.action.label} (action ${rec.action.id})`);
  // int64 counts are bigint: exact, and printed as they are.
  console.log(`${rec.iterations} iterations, ${rec.nodes} nodes, ${Math.round(rec.elapsedMs)} ms, `
              + `stopped by ${StopReason[rec.stopReason].toLowerCase()}, algorithm ${rec.settings.algorithm}`);
  console.log("  id  action        visits    mean  policy");
  for (const s of rec.actions) {
    const action = s.action ?? { id: -1, label: "?" };
    console.log(`${String(action.id).padStart(4)}  ${action.label.padEnd(12)}`
                + `${String(s.visits).padStart(8)}  ${s.meanValue.toFixed(3).padStart(6)}`
                + `  ${s.policy.toFixed(3).padStart(6)}`);
  }
  for (const note of rec.notes) console.log(`note: ${note}`);
}

async function main() {
  const args = process.argv.slice(2);
  const stream = args.includes("--stream");
  const baseUrl = args.find((a) => a !== "--stream") ?? "http://127.0.0.1:8080";
  // A deadline for every call: the server stops a search at it.
  const fagin = createFaginClient(baseUrl, { token: process.env.FAGIN_AUTH_TOKEN || undefined, timeoutMs: 30_000 });

  const game = await fagin.newGame({ game: "kids_of_london", players: 4, seed: 1n });
  if (!game.status) throw new Error("NewGame answered no status");
  // The state goes back as the server sent it: the client keeps the game, the server nothing.
  const iterations = stream ? 20_000n : 2000n;
  const request = { state: game.state, seat: game.status.currentSeat, search: { iterations, seed: 7n } };
  if (!stream) {
    print(await fagin.recommend(request));
    return;
  }
  // StreamRecommend: reports every reportIntervalMs while the search runs, then exactly one final.
  for await (const progress of fagin.streamRecommend({ request, reportIntervalMs: 10 })) {
    const rec = progress.recommendation;
    if (!rec) continue;
    if (progress.final) print(rec);
    else console.log(`progress: ${rec.iterations} iterations, best so far ${rec.action?.label}`);
  }
}

main().catch((err) => {
  // A call the server refused: its code and message (for bad input, the message starts with
  // the field); a server that cannot be reached is Code.Unavailable.
  if (!(err instanceof ConnectError)) {
    console.error(`fagin: ${err instanceof Error ? err.message : err}`);
    process.exit(2);
  }
  console.error(`fagin: ${codeToString(err.code).toUpperCase()}: ${err.rawMessage}`);
  process.exit(err.code === Code.Unavailable ? 3 : 2);
});
