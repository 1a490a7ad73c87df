"""The trick results the play keeps encoded read back as the ``TrickResult`` they stand for."""

from __future__ import annotations

from chaodipi.auditor.tricks import _COMMON_RESULTS, _encoded_result
from chaodipi.v1 import audit_pb2


def test_trick_results_read_back_as_written() -> None:
    # Most tricks come from the table, the rest (a throw, 128 points or more) are encoded.
    throw = audit_pb2.TrickResult(throw_attempted=True, penalty=-30, forced_unit=["SA", "SA"])
    for leader, winner, points in ((0, 0, 0), (3, 1, 127), (2, 3, 128), (1, 2, 300)):
        want = audit_pb2.TrickResult(leader=leader, winner=winner, points=points)
        encoded = [_encoded_result(leader, winner, points, None)]
        if points < 128:
            encoded.append(_COMMON_RESULTS[leader << 9 | winner << 7 | points])
        for data in encoded:
            assert list(audit_pb2.Computed.FromString(data).tricks) == [want]
        want.MergeFrom(throw)
        read = audit_pb2.Computed.FromString(_encoded_result(leader, winner, points, throw))
        assert list(read.tricks) == [want]
