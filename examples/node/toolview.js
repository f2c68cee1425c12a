// Loads the toolview services from ../../proto at run time (no generated code is committed).
const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const PROTO = path.join(__dirname, '..', '..', 'proto');
const definition = protoLoader.loadSync(
  ['toolview/v1/session_service.proto', 'toolview/v1/presentation_service.proto'],
  { includeDirs: [PROTO], keepCase: false, longs: String, enums: String, defaults: false, oneofs: true },
);
const v1 = grpc.loadPackageDefinition(definition).toolview.v1;

function sessionClient(address) {
  return new v1.SessionService(address, grpc.credentials.createInsecure());
}

module.exports = { grpc, sessionClient };
