// The Node.js transport: gRPC over HTTP/2 (connect-node), TLS with a CA, a bearer token.

import type { Transport } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { bearer, type Token } from "./bearer.js";
import { Client } from "./client.js";
import type { PublishOptions } from "./publisher.js";

export interface NodeOptions {
  /** A bearer token, or a function giving the current one (asked for every call). */
  token?: Token;
  /** The server's CA (PEM): connects with TLS. */
  ca?: string | Buffer;
  /** TLS with the system's roots. */
  tls?: boolean;
  publish?: PublishOptions;
}

export { bearer } from "./bearer.js";

/** The base URL of `server` as the CLI takes it too: `host:port`, `http://host:port` or
 * `https://host:port` (TLS; also with `tls` or `ca`). */
export function baseUrl(server: string, secure: boolean): string {
  const url = /^https?:\/\//.test(server) ? server.replace(/\/+$/, "") : `http://${server}`;
  return secure ? url.replace(/^http:/, "https:") : url;
}

/** A gRPC transport to `server` (`host:port`, or an `http://`/`https://` URL). */
export function grpcTransport(server: string, options: NodeOptions = {}): Transport {
  const secure = options.tls || options.ca !== undefined;
  return createGrpcTransport({
    baseUrl: baseUrl(server, secure),
    interceptors: options.token ? [bearer(options.token)] : [],
    nodeOptions: options.ca !== undefined ? { ca: options.ca } : {},
  });
}

/** A client of `server` (`host:port`, or an `http://`/`https://` URL) over gRPC. */
export function connect(server: string, options: NodeOptions = {}): Client {
  return new Client(grpcTransport(server, options), {
    publish: options.publish,
    refreshableToken: typeof options.token === "function",
  });
}
