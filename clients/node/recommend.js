#!/usr/bin/env node
// Asks a fagin server for a move in a new Kids of London game and prints it, with the
// search's statistics for every legal action (docs/API.md, "Node").
//
//   npm ci && node recommend.js [HOST:PORT]        (default 127.0.0.1:50051)
//
// Environment: FAGIN_AUTH_TOKEN, a bearer token (sent only over TLS or to a loopback
// address: in plaintext on a network it could be read and replayed); FAGIN_TLS_CA, a CA
// bundle (PEM) that turns TLS on; FAGIN_PROTO_ROOT, the folder holding fagin/v1/*.proto
// (default: this repository's proto/).
'use strict';

const fs = require('fs');
const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const PROTO_ROOT = process.env.FAGIN_PROTO_ROOT || path.resolve(__dirname, '..', '..', 'proto');

// keepCase: fields as the .proto spells them (snake_case); longs as strings, since int64
// and uint64 do not fit a JavaScript number; enums by name.
const definition = protoLoader.loadSync('fagin/v1/fagin.proto', {
  includeDirs: [PROTO_ROOT],
  keepCase: true,
  longs: String,
  enums: String,
  oneofs: true,
  // Every field present, at its default value too (seat 0 as 0, not left out); fields with
  // presence (proto3 optional, oneof members) stay absent when unset.
  defaults: true,
});
const fagin = grpc.loadPackageDefinition(definition).fagin.v1;

function isLoopback(target) {
  const host = target.replace(/^dns:\/{0,3}/, '').replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127\./.test(host);
}

function connect(target) {
  const ca = process.env.FAGIN_TLS_CA;
  const token = process.env.FAGIN_AUTH_TOKEN;
  const metadata = new grpc.Metadata();
  if (token) {
    if (!ca && !isLoopback(target)) {
      throw new Error(`FAGIN_AUTH_TOKEN: a token is sent only over TLS or to a loopback address, ` +
                      `and ${target} is neither: set FAGIN_TLS_CA`);
    }
    metadata.set('authorization', `Bearer ${token}`);
  }
  const credentials = ca ? grpc.credentials.createSsl(fs.readFileSync(ca))
                         : grpc.credentials.createInsecure();
  return { client: new fagin.Fagin(target, credentials), metadata };
}

// One unary call as a promise, with a deadline.
function call(client, metadata, method, request, seconds = 30) {
  return new Promise((resolve, reject) => {
    client[method](request, metadata, { deadline: Date.now() + seconds * 1000 }, (err, response) => {
      if (err) reject(err); else resolve(response);
    });
  });
}

async function main() {
  const target = process.argv[2] || '127.0.0.1:50051';
  const { client, metadata } = connect(target);
  try {
    const game = await call(client, metadata, 'NewGame', { game: 'kids_of_london', players: 4, seed: 1 });
    const seat = game.status.current_seat;
    // The state goes back as the server sent it: the client keeps the game, the server nothing.
    const rec = await call(client, metadata, 'Recommend', {
      state: game.state,
      seat,
      search: { iterations: 2000, seed: 7 },
    });
    console.log(`recommended for seat ${rec.seat}: ${rec.action.label} (action ${rec.action.id})`);
    console.log(`${rec.iterations} iterations, ${rec.nodes} nodes, ${Math.round(rec.elapsed_ms)} ms, ` +
                `stopped by ${rec.stop_reason.replace('STOP_REASON_', '').toLowerCase()}, ` +
                `algorithm ${rec.settings.algorithm}`);
    console.log('  id  action        visits    mean  policy');
    for (const s of rec.actions) {
      console.log(`${String(s.action.id).padStart(4)}  ${s.action.label.padEnd(12)}` +
                  `${String(s.visits).padStart(8)}  ${s.mean_value.toFixed(3).padStart(6)}` +
                  `  ${s.policy.toFixed(3).padStart(6)}`);
    }
    for (const note of rec.notes) console.log(`note: ${note}`);
  } finally {
    client.close();
  }
}

main().catch((err) => {
  // A gRPC error carries the status code and the server's message (it starts with the field).
  const code = err.code !== undefined ? `${grpc.status[err.code]}: ` : '';
  console.error(`fagin: ${code}${err.details || err.message}`);
  process.exit(err.code === grpc.status.UNAVAILABLE ? 3 : 2);
});
