// The bearer token both transports send: a fixed one, or a function asked for every call (so a
// subscription that outlives its token resumes with a fresh one).

import type { Interceptor } from "@connectrpc/connect";

/** A bearer token, or a function giving the current one (asked for every call). */
export type Token = string | (() => string | Promise<string>);

/** A bearer-token interceptor. */
export function bearer(token: Token): Interceptor {
  return (next) => async (request) => {
    const value = typeof token === "function" ? await token() : token;
    if (value) request.header.set("authorization", `Bearer ${value}`);
    return next(request);
  };
}
