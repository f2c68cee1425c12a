// The browser transport: gRPC-Web (connect-web), which toolview serves beside gRPC (a page from
// another origin needs the server's --cors-origin).

import type { Transport } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-web";
import { bearer, type Token } from "./bearer.js";
import { Client } from "./client.js";
import type { PublishOptions } from "./publisher.js";

/** A gRPC-Web transport to `baseUrl` (`https://toolview.example.com`). */
export function grpcWebTransport(baseUrl: string, token?: Token): Transport {
  return createGrpcWebTransport({ baseUrl, interceptors: token ? [bearer(token)] : [] });
}

/** A client of `baseUrl` over gRPC-Web. */
export function connect(baseUrl: string, options: { token?: Token; publish?: PublishOptions } = {}): Client {
  return new Client(grpcWebTransport(baseUrl, options.token), {
    publish: options.publish,
    refreshableToken: typeof options.token === "function",
  });
}
