"""Generated protobuf and gRPC code for the ``chaodipi.v1`` package (see ``proto/chaodipi/v1``).

Regenerate with ``scripts/gen_proto.sh``; never edit the ``*_pb2*`` files by hand.
"""
