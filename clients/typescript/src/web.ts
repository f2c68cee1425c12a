// The browser transport: gRPC-Web (connect-web), which toolview serves beside gRPC (a page from
// another origin needs the server's --cors-origin).
import { createGrpcWebTransport } from "@connectrpc/connect-web";
import type { Interceptor, Transport } from "@connectrpc/connect";
import { Client } from "./client.js";
import type { PublishOptions } from "./publisher.js";

/** A gRPC-Web transport to `baseUrl` (`https://toolview.example.com`). */
export function grpcWebTransport(baseUrl: string, token?: string | (() => string | Promise<string>)): Transport {
  const interceptors: Interceptor[] = token
    ? [
        (next) => async (request) => {
          const value = typeof token === "function" ? await token() : token;
          if (value) request.header.set("authorization", `Bearer ${value}`);
          return next(request);
        },
      ]
    : [];
  return createGrpcWebTransport({ baseUrl, interceptors });
}

/** A client of `baseUrl` over gRPC-Web. */
export function connect(
  baseUrl: string,
  options: { token?: string | (() => string | Promise<string>); publish?: PublishOptions } = {},
): Client {
  return new Client(grpcWebTransport(baseUrl, options.token), {
    publish: options.publish,
    refreshableToken: typeof options.token === "function",
  });
}
