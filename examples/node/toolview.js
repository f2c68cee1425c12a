// Loads the toolview services from ../../proto at run time (no generated code is committed),
// and connects to a server: TLS with --tls-ca (or TOOLVIEW_TLS_CA), a bearer token with --token
// (or TOOLVIEW_TOKEN).
const fs = require('fs');
const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const PROTO = path.join(__dirname, '..', '..', 'proto');
const definition = protoLoader.loadSync(
  ['toolview/v1/session_service.proto', 'toolview/v1/presentation_service.proto'],
  { includeDirs: [PROTO], keepCase: false, longs: String, enums: String, defaults: false, oneofs: true },
);
const v1 = grpc.loadPackageDefinition(definition).toolview.v1;

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
}

// Adds `authorization: Bearer <token>` to every call.
const bearer = (token) => (options, nextCall) =>
  new grpc.InterceptingCall(nextCall(options), {
    start(metadata, listener, next) {
      metadata.set('authorization', `Bearer ${token}`);
      next(metadata, listener);
    },
  });

function sessionClient(address) {
  const ca = arg('tls-ca', process.env.TOOLVIEW_TLS_CA);
  const token = arg('token', process.env.TOOLVIEW_TOKEN);
  const credentials = ca
    ? grpc.credentials.createSsl(fs.readFileSync(ca))
    : grpc.credentials.createInsecure();
  return new v1.SessionService(address, credentials, { interceptors: token ? [bearer(token)] : [] });
}

module.exports = { arg, grpc, sessionClient };
