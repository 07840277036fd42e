// @fagin/client: the fagin service from TypeScript or JavaScript, in browsers and in Node.
//
// Everything typed here is generated from proto/fagin/v1/*.proto (scripts/generate.mjs, by
// @bufbuild/protoc-gen-es): the messages, their proto3 JSON forms and the Fagin service.
// What this file adds is how to reach a fagin server's HTTP port (the Connect protocol's
// unary form for unary calls, gRPC-Web for the streaming one), its bearer token, and a client
// that speaks the proto3 JSON form for callers that keep their games as JSON (a saved
// record, a pasted position): the browser page is one.
import {
  fromJson,
  toJson,
  type DescMessage,
  type DescMethodServerStreaming,
  type DescMethodUnary,
  type JsonReadOptions,
  type JsonWriteOptions,
  type MessageJsonType,
} from "@bufbuild/protobuf";
import { ConnectError, Code, createClient, type CallOptions, type Client, type Interceptor, type Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-web";
import { Fagin } from "./gen/index.js";

export * from "./gen/index.js";
export { ConnectError, Code } from "@connectrpc/connect";
// Code.InvalidArgument as the wire names it, "invalid_argument" (the Connect protocol's name).
export { codeToString } from "@connectrpc/connect/protocol-connect";
export type { CallOptions, Client } from "@connectrpc/connect";
export { create, fromJson, toJson, fromJsonString, toJsonString, fromBinary, toBinary, equals, clone } from "@bufbuild/protobuf";

/** The typed client: a method per rpc of the Fagin service (`listGames`, `newGame`, ...),
 * taking and answering the generated messages (64-bit integers as `bigint`). */
export type FaginClient = Client<typeof Fagin>;

/** How calls reach the server's HTTP port.
 *
 * - `"connect"`: unary calls in the Connect protocol (one POST, one answer, readable in a
 *   browser's network panel), the streaming call in gRPC-Web, which the server's HTTP port
 *   serves streamed (its Connect form is unary only).
 * - `"grpc-web"`: every call in gRPC-Web (binary protobuf framed, the status in trailers). */
export type FaginTransport = "connect" | "grpc-web";

export interface FaginClientOptions {
  /** A bearer token (the server's `--auth-token`), sent as `Authorization: Bearer <token>`;
   * a function is asked again at each call (a token typed into a page after the client was made).
   * Sent only over `https:` or to a loopback address unless `allowPlaintextToken`: in plaintext
   * on a network it could be read and replayed. */
  token?: string | (() => string | undefined);
  /** Send the token over plain `http:` to a host that is not loopback. The browser page served
   * by the server itself sets it: its user already reaches that server over its address bar's
   * scheme, and a server bound beyond loopback without TLS warns so in its log. */
  allowPlaintextToken?: boolean;
  /** `"connect"` (the default) or `"grpc-web"`: see FaginTransport. */
  transport?: FaginTransport;
  /** Connect only: send and receive binary protobuf (`application/proto`) instead of proto3
   * JSON. JSON is the default: a server older than a field this client knows refuses it by
   * name (INVALID_ARGUMENT: no field named ...) where binary protobuf would pass it over
   * unread. gRPC-Web is always binary. */
  binary?: boolean;
  /** A deadline for every call, in milliseconds, unless a call gives its own
   * (`{ timeoutMs }` in its options); sent as `connect-timeout-ms` or `grpc-timeout`, and the
   * server stops a search at it. None by default. */
  timeoutMs?: number;
  /** The fetch to use (default: globalThis.fetch, in browsers and Node 18 and later). */
  fetch?: typeof globalThis.fetch;
  /** More interceptors, run after the one that adds the token. */
  interceptors?: Interceptor[];
}

/** Whether a token may go to `baseUrl`: over TLS, or to this machine. */
function tokenMayGo(baseUrl: string): boolean {
  let url: URL;
  try {
    url = new URL(baseUrl, globalThis.location?.href);
  } catch {
    return false;
  }
  if (url.protocol === "https:") return true;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  return host === "localhost" || host === "::1" || /^127\./.test(host);
}

/** `fetch` (default: globalThis.fetch, looked up at each call, so that one replaced after the
 * client was made is used), with a server that cannot be reached (no answer at all: refused,
 * no route, TLS failed) reported as gRPC does, Code.Unavailable, which a caller may retry, not
 * as the Code.Unknown Connect-ES makes of fetch's TypeError. A call aborted by its caller or
 * its deadline stays as fetch reports it. */
function reachingFetch(given?: typeof globalThis.fetch): typeof globalThis.fetch {
  return async (input, init) => {
    try {
      return await (given ?? globalThis.fetch)(input, init);
    } catch (e) {
      if (init?.signal?.aborted || !(e instanceof TypeError)) throw e;
      throw new ConnectError(`the server cannot be reached (${e.message})`, Code.Unavailable, undefined, undefined, e);
    }
  };
}

/** The transport `createFaginClient` would make: for `createClient` with another service
 * descriptor, or for interceptors of one's own. */
export function createFaginTransport(baseUrl: string, options: FaginClientOptions = {}): Transport {
  const kind = options.transport ?? "connect";
  if (kind !== "connect" && kind !== "grpc-web") {
    throw new Error(`transport: "connect" or "grpc-web", not ${JSON.stringify(kind)}`);
  }
  if (typeof baseUrl !== "string" || baseUrl === "") {
    throw new Error("baseUrl: the server's HTTP address, e.g. http://127.0.0.1:8080");
  }
  const base = baseUrl.replace(/\/+$/, "");
  const { token } = options;
  if (token !== undefined && !options.allowPlaintextToken && !tokenMayGo(base)) {
    throw new Error(`token: a token is sent only over https: or to a loopback address, and ${base} is neither `
      + "(allowPlaintextToken overrides this)");
  }
  const bearer: Interceptor = (next) => async (request) => {
    const value = typeof token === "function" ? token() : token;
    if (value) request.header.set("Authorization", `Bearer ${value}`);
    return next(request);
  };
  const common = {
    baseUrl: base,
    interceptors: [bearer, ...(options.interceptors ?? [])],
    defaultTimeoutMs: options.timeoutMs,
    // A newer server's answer may hold fields this client does not know: read past them.
    jsonOptions: { ignoreUnknownFields: true },
    fetch: reachingFetch(options.fetch),
  };
  const grpcWeb = createGrpcWebTransport(common);
  if (kind === "grpc-web") return grpcWeb;
  const connect = createConnectTransport({ ...common, useBinaryFormat: options.binary ?? false });
  return {
    unary: (...args) => connect.unary(...args),
    stream: (...args) => grpcWeb.stream(...args),
  };
}

/** A client of the fagin server whose HTTP port (`fagin serve --http-port`) is at `baseUrl`
 * (e.g. "http://127.0.0.1:8080"; in a page served by that server, its own address).
 *
 *     const fagin = createFaginClient("http://127.0.0.1:8080");
 *     const game = await fagin.newGame({ game: "kuhn_poker", players: 2, seed: 1n });
 *
 * A call the server refuses rejects with a ConnectError: its `code` (Code.InvalidArgument,
 * ...) and `rawMessage`, which for bad input starts with the offending field's path.
 * BatchRecommend streams requests from the client, which fetch cannot: it needs a gRPC
 * client over HTTP/2 (the gRPC port), and fails here with Code.Unimplemented. */
export function createFaginClient(baseUrl: string, options: FaginClientOptions = {}): FaginClient {
  return createClient(Fagin, createFaginTransport(baseUrl, options));
}

// ------------------------------------------------------------------------------------------
// The JSON client

type JsonMethod<M> =
  M extends DescMethodUnary<infer I, infer O>
    ? (request: MessageJsonType<I>, options?: CallOptions) => Promise<MessageJsonType<O>>
    : M extends DescMethodServerStreaming<infer I, infer O>
      ? (request: MessageJsonType<I>, options?: CallOptions) => AsyncIterable<MessageJsonType<O>>
      : never;

type StreamingFromClient = "batchRecommend";

/** The Fagin service's unary and server-streaming methods over proto3 JSON: each takes a
 * request in its JSON form (`{"state": {"kuhnPoker": {...}}, "search": {"iterations": "2000"}}`,
 * 64-bit integers as strings or numbers) and answers the JSON form, with every field present
 * even at its default value (seat 0 as 0), as the server's JSON answers are. */
export type FaginJsonClient = {
  [P in Exclude<keyof (typeof Fagin)["method"], StreamingFromClient>]: JsonMethod<(typeof Fagin)["method"][P]>;
};

/** How the JSON client reads requests and writes answers. */
const JSON_READ: Partial<JsonReadOptions> = { ignoreUnknownFields: false };
const JSON_WRITE: Partial<JsonWriteOptions> = { alwaysEmitImplicit: true };

/** The JSON form of `message` as the server's JSON answers have it: every field present,
 * at its default value too. */
function answerJson<O extends DescMessage>(schema: O, message: Parameters<typeof toJson<O>>[1]): MessageJsonType<O> {
  return toJson(schema, message, JSON_WRITE) as MessageJsonType<O>;
}

/** A request the JSON client refused before sending it: its JSON is not the proto3 JSON form
 * of the request (an unknown field, a string where a number goes). A ConnectError with
 * Code.InvalidArgument, as the server would answer, whose message names the message and field;
 * its own class tells a caller that the server never saw it. */
export class InvalidRequestJsonError extends ConnectError {
  constructor(detail: string, cause?: unknown) {
    super(`request: ${detail}`, Code.InvalidArgument, undefined, undefined, cause);
  }

  // ConnectError's own test accepts any error shaped as one (from another copy of Connect);
  // this class is told apart by its prototype, as classes are.
  static [Symbol.hasInstance](value: unknown): boolean {
    return Function.prototype[Symbol.hasInstance].call(this, value);
  }
}

/** A request's message from its JSON form, or an InvalidRequestJsonError. */
function requestMessage<I extends DescMessage>(schema: I, json: MessageJsonType<I>) {
  try {
    return fromJson(schema, json as Parameters<typeof fromJson<I>>[1], JSON_READ);
  } catch (e) {
    throw new InvalidRequestJsonError(e instanceof Error ? e.message : String(e), e);
  }
}

/** A client that takes and answers the proto3 JSON form of every message, over `client` (a
 * FaginClient) or over a new one for `baseUrl` and `options` (as createFaginClient).
 *
 *     const fagin = createFaginJsonClient("http://127.0.0.1:8080");
 *     const game = await fagin.newGame({ game: "kuhn_poker", players: 2, seed: "1" });
 *     const rec = await fagin.recommend({ state: game.state, seat: 0, search: { iterations: "2000" } });
 *     rec.iterations === "2000";   // int64 in JSON: a string
 */
export function createFaginJsonClient(client: FaginClient | string, options: FaginClientOptions = {}): FaginJsonClient {
  const typed = typeof client === "string" ? createFaginClient(client, options) : client;
  const json: Record<string, unknown> = {};
  for (const method of Fagin.methods) {
    const call = (typed as unknown as Record<string, (request: unknown, options?: CallOptions) => unknown>)[method.localName];
    if (method.methodKind === "unary") {
      json[method.localName] = async (request: MessageJsonType<DescMessage>, callOptions?: CallOptions) =>
        answerJson(method.output, await (call(requestMessage(method.input, request), callOptions) as Promise<never>));
    } else if (method.methodKind === "server_streaming") {
      json[method.localName] = async function* (request: MessageJsonType<DescMessage>, callOptions?: CallOptions) {
        for await (const answer of call(requestMessage(method.input, request), callOptions) as AsyncIterable<never>) {
          yield answerJson(method.output, answer);
        }
      };
    }
  }
  return json as FaginJsonClient;
}
