"""Benchmark: replaying with legality checks, against python-chess in the same run.

Like for like, on one core (CPU time, best of ``--rounds``, the two timed in turn):

- python-chess: random legal games (seeded, made with python-chess itself and written as PGN
  before the clock starts); timed, each PGN text is read (``chess.pgn.read_game``, which
  resolves every SAN move against the position) and its moves replayed on a fresh board, each
  checked with ``board.is_legal`` before ``board.push``. Plies per second.
- chaodipi: generated two-deck hands, serialized; timed, each is fully audited from its bytes
  (``audit_game`` given the encoding, as a file's or a batch's records are: the record read,
  deal, bidding, kitty, every lead, throw and follow checked, the winner and the score), the
  report serialized. Card plays per second
  (four a trick; bids and the kitty are audited too but not counted).

    python bench/peers.py [--games 200] [--hands 400] [--rounds 3]

It measures the ``chaodipi`` this Python has installed, and says which build it is. python-chess
is in the ``dev`` extra (``pip install -e '.[dev]'``) for this benchmark only.
"""

from __future__ import annotations

import argparse
import io
import random

import chess
import chess.pgn
from build_info import describe_build  # bench/, beside this script
from timing import best_cpu

from chaodipi.auditor import audit_game
from chaodipi.auditor.generate import generate_hand
from chaodipi.v1 import records_pb2


def random_game(seed: int, max_plies: int = 200) -> str:
    """A random legal game as PGN text: uniform moves until the game ends or ``max_plies``."""
    rng = random.Random(seed)
    board = chess.Board()
    while not board.is_game_over() and board.ply() < max_plies:
        board.push(rng.choice(list(board.legal_moves)))
    game = chess.pgn.Game.from_board(board)
    game.headers["Event"] = f"random game {seed}"
    return str(game)


def replay_pgn(text: str) -> int:
    """Read one PGN game and replay it with a legality check per move; the plies played."""
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None and not game.errors, text[:200]
    board = game.board()
    plies = 0
    for move in game.mainline_moves():
        if not board.is_legal(move):
            raise ValueError(f"illegal move {move} in {game.headers['Event']}")
        board.push(move)
        plies += 1
    return plies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="chess games (PGN)")
    parser.add_argument("--hands", type=int, default=400, help="generated classic hands")
    parser.add_argument("--ruleset", default="classic")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    pgns = [random_game(seed) for seed in range(args.games)]
    plies = sum(replay_pgn(text) for text in pgns)  # also checks every game replays
    blobs = [generate_hand(args.ruleset, seed).SerializeToString() for seed in range(args.hands)]
    plays = sum(
        len(trick.plays)
        for blob in blobs
        for trick in records_pb2.GameRecord.FromString(blob).tricks
    )

    def chess_replay() -> None:
        for text in pgns:
            replay_pgn(text)

    def our_replay() -> None:
        for blob in blobs:
            audit_game(blob).SerializeToString()

    chess_s = our_s = float("inf")
    for _ in range(args.rounds):  # in turn, so both see the machine in the same state
        chess_s = min(chess_s, best_cpu(1, chess_replay))
        our_s = min(our_s, best_cpu(1, our_replay))
    chess_rate, our_rate = plies / chess_s, plays / our_s
    print(describe_build())
    print(f"python-chess {chess.__version__}; CPU time, best of {args.rounds}, in turn")
    print(
        f"python-chess, PGN read + replay with is_legal: {chess_rate:10,.0f} plies/s "
        f"({args.games} games, {plies:,} plies)"
    )
    print(
        f"chaodipi, full audit of the record's bytes:    {our_rate:10,.0f} plays/s "
        f"({args.hands} {args.ruleset} hands, {plays:,} plays)"
    )
    print(f"chaodipi plays/s as a multiple of python-chess plies/s: {our_rate / chess_rate:.1f}x")


if __name__ == "__main__":
    main()
