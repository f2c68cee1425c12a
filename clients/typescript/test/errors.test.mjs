// The refused field comes from the status's google.rpc.BadRequest detail (and, from an older
// server that sends none, from the message's leading path). No server needed.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Code, ConnectError } from "@connectrpc/connect";
import { fieldViolation, ToolviewError } from "@toolview/client";

const field = (number, payload) => Uint8Array.of((number << 3) | 2, payload.length, ...payload);
const text = (s) => new TextEncoder().encode(s);

test("the field comes from the BadRequest detail", () => {
  const violation = Uint8Array.of(...field(1, text("events[3].call_id")), ...field(2, text("not a valid id")));
  const badRequest = field(1, violation);
  // As the gRPC transport parses a status-details trailer.
  const error = new ConnectError("the event is bad", Code.InvalidArgument);
  error.details = [{ type: "google.rpc.BadRequest", value: badRequest }];
  assert.equal(fieldViolation(error), "events[3].call_id");
  const typed = ToolviewError.from(error);
  assert.equal(typed.field, "events[3].call_id");
  assert.equal(typed.eventIndex, 3);
  // An older server: the message's leading path.
  assert.equal(
    ToolviewError.from(new ConnectError("events[1].event_id: bad", Code.InvalidArgument)).field,
    "events[1].event_id",
  );
  // A damaged detail is no field, never an exception.
  const broken = new ConnectError("x", Code.InvalidArgument);
  broken.details = [{ type: "google.rpc.BadRequest", value: badRequest.slice(0, -3) }];
  assert.equal(fieldViolation(broken), undefined);
});

test("a server is named as the CLI names it", async () => {
  const { baseUrl } = await import("@toolview/client/node");
  assert.equal(baseUrl("127.0.0.1:50051", false), "http://127.0.0.1:50051");
  assert.equal(baseUrl("http://127.0.0.1:50051/", false), "http://127.0.0.1:50051");
  assert.equal(baseUrl("https://toolview.example", false), "https://toolview.example");
  assert.equal(baseUrl("127.0.0.1:50051", true), "https://127.0.0.1:50051");
});

test("a fetch that nothing answered is UNAVAILABLE, so a browser's subscription follows again", () => {
  const refused = new TypeError("Failed to fetch");
  assert.equal(ToolviewError.from(refused).code, Code.Unavailable);
  assert.equal(ToolviewError.from(ConnectError.from(refused)).code, Code.Unavailable);
  assert.equal(ToolviewError.from(new Error("boom")).code, Code.Unknown);
});
