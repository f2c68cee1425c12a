"""The toolview.v1 protobuf messages and gRPC stubs, generated from proto/ by
scripts/generate-clients.sh (do not edit the *_pb2* modules)."""
