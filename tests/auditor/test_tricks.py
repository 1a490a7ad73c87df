"""The trick results the play keeps encoded read back as the ``TrickResult`` they stand for."""

from __future__ import annotations

from chaodipi.auditor.tricks import _COMMON_RESULTS, _encoded_result, _encoded_throw
from chaodipi.auditor.wire import TOKEN_KINDS
from chaodipi.v1 import audit_pb2


def test_trick_results_read_back_as_written() -> None:
    # Most tricks come from the table, the rest (a throw, 128 points or more) are encoded.
    throw = audit_pb2.TrickResult(throw_attempted=True, penalty=-30, forced_unit=["SA", "SA"])
    ace = TOKEN_KINDS["SA"]
    for leader, winner, points in ((0, 0, 0), (3, 1, 127), (2, 3, 128), (1, 2, 300)):
        want = audit_pb2.TrickResult(leader=leader, winner=winner, points=points)
        encoded = [_encoded_result(leader, winner, points, b"")]
        if points < 128:
            encoded.append(_COMMON_RESULTS[leader << 9 | winner << 7 | points])
        for data in encoded:
            assert list(audit_pb2.Computed.FromString(data).tricks) == [want]
        want.MergeFrom(throw)
        fields = _encoded_throw(False, [ace, ace], -30)
        read = audit_pb2.Computed.FromString(_encoded_result(leader, winner, points, fields))
        assert list(read.tricks) == [want]


def test_a_throws_fields_are_encoded_as_the_message_would_be() -> None:
    for stood in (False, True):
        for penalty in (0, 10, -30, 150, -2_000_000):
            for forced in ([], ["D9"], ["C5", "C5", "C6", "C6"], ["BJ"]):
                data = _encoded_throw(stood, [TOKEN_KINDS[t] for t in forced], penalty)
                want = audit_pb2.TrickResult(
                    throw_attempted=True, throw_stood=stood, penalty=penalty, forced_unit=forced
                )
                assert audit_pb2.TrickResult.FromString(data) == want
                assert sorted(data) == sorted(want.SerializeToString())
