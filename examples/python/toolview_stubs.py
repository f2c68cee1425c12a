"""Generates the toolview gRPC stubs from ../../proto (on first use) and imports them, and
connects to a server (TLS and a bearer token when given).

Nothing generated is committed: the stubs land in ./_gen next to this file, rebuilt when a
.proto file is newer than them.
"""

import importlib
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PROTO = os.path.normpath(os.path.join(HERE, "..", "..", "proto"))
GEN = os.path.join(HERE, "_gen")


def _protos():
    root = os.path.join(PROTO, "toolview", "v1")
    return [os.path.join(root, f) for f in sorted(os.listdir(root)) if f.endswith(".proto")]


def _stale():
    marker = os.path.join(GEN, ".stamp")
    if not os.path.exists(marker):
        return True
    built = os.path.getmtime(marker)
    return any(os.path.getmtime(p) > built for p in _protos())


def _generate():
    import grpc_tools
    from grpc_tools import protoc

    os.makedirs(GEN, exist_ok=True)
    well_known = os.path.join(os.path.dirname(grpc_tools.__file__), "_proto")
    args = ["protoc", f"-I{PROTO}", f"-I{well_known}", f"--python_out={GEN}", f"--grpc_python_out={GEN}"]
    if protoc.main(args + _protos()) != 0:
        raise RuntimeError("generating the toolview stubs failed")
    open(os.path.join(GEN, ".stamp"), "w").close()


if _stale():
    _generate()
if GEN not in sys.path:
    sys.path.insert(0, GEN)

events_pb2 = importlib.import_module("toolview.v1.events_pb2")
views_pb2 = importlib.import_module("toolview.v1.views_pb2")
rendering_pb2 = importlib.import_module("toolview.v1.rendering_pb2")
session_service_pb2 = importlib.import_module("toolview.v1.session_service_pb2")
session_service_pb2_grpc = importlib.import_module("toolview.v1.session_service_pb2_grpc")


def add_connection_args(parser):
    """--server, --token (or TOOLVIEW_TOKEN) and --tls-ca (or TOOLVIEW_TLS_CA)."""
    parser.add_argument("--server", default="127.0.0.1:50051")
    parser.add_argument("--token", default=os.environ.get("TOOLVIEW_TOKEN"), help="a JWT for a server with --auth jwt")
    parser.add_argument("--tls-ca", default=os.environ.get("TOOLVIEW_TLS_CA"), help="the CA (PEM) of a TLS server")


def connect(args):
    """A channel to the server, and the metadata every call carries."""
    import grpc

    if args.tls_ca:
        with open(args.tls_ca, "rb") as f:
            channel = grpc.secure_channel(args.server, grpc.ssl_channel_credentials(root_certificates=f.read()))
    else:
        channel = grpc.insecure_channel(args.server)
    metadata = [("authorization", f"Bearer {args.token}")] if args.token else []
    return channel, metadata
