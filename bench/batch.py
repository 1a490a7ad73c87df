"""Benchmark: the batch audit of a generated corpus on 1 and 2 cores, and on Ray.

Prints hands per second for the local process pool on 1 and 2 cores (the bar: 2 cores at least
1.7x one core) and for Ray with 2 CPUs on the same corpus; whether every run produced the same
ledger rows and reports; with --memory, the peak resident set of the parent and its workers
(the bar: under 500 MB for 200,000 hands). "n cores" pins the whole process tree, parent
included, to n CPUs and runs n workers, so the parent's reading and writing is paid for on the
same cores.

The corpus is ``--unique`` generated hands (1 in 20 with a planted fault), replicated with new
record ids up to ``--hands`` and written once as length-delimited .pb files of 4,000 hands in
``--corpus`` (reused by later runs with the same sizes).

With --database URL it also audits the corpus on 2 cores into that database (as the service
stores uploads, ``audit-batch --store``) and prints the stored hands per second and the rows
written per hand; with --ray too, again on Ray with 2 CPUs into the emptied database.

    python bench/batch.py [--hands 20000] [--unique 2000] [--cores 1,2] [--ray] [--memory]
                          [--database URL]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import shutil
import tempfile
import threading
import time
from multiprocessing import Pool
from pathlib import Path

from build_info import describe_build  # bench/, beside this script

from chaodipi import importers
from chaodipi.auditor.faults import plant_any
from chaodipi.auditor.generate import generate_hand
from chaodipi.batch import DatabaseSink, JsonFolderSink, LocalBackend, Summary, run_batch
from chaodipi.batch.run import Backend
from chaodipi.v1 import records_pb2

PER_FILE = 4000
RULESETS = ("classic", "shuangsheng", "anhui", "changshu")
PAGE = os.sysconf("SC_PAGE_SIZE")


def _hand(seed: int) -> bytes:
    record = generate_hand(RULESETS[seed % len(RULESETS)], seed)
    if seed % 20 == 0:
        record = plant_any(record, random.Random(seed))[0]
    return record.SerializeToString()


def make_corpus(folder: Path, hands: int, unique: int) -> None:
    """Generate ``unique`` hands on every core, then write ``hands`` of them with new ids."""
    marker = folder / f".complete-{hands}-{unique}"
    if marker.exists():
        return
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    start = time.perf_counter()
    with Pool() as pool:
        blobs = pool.map(_hand, range(unique), chunksize=16)
    print(f"generated {unique:,} distinct hands in {time.perf_counter() - start:.1f} s")
    batch: list[records_pb2.RecordFile] = []
    for i in range(hands):
        game = records_pb2.GameRecord.FromString(blobs[i % unique])
        game.record_id = f"{game.record_id}~{i // unique}"
        batch.append(records_pb2.RecordFile(game=game))
        if len(batch) == PER_FILE or i == hands - 1:
            importers.write(batch, folder / f"part-{i // PER_FILE:04d}.pb", "pb")
            batch = []
    marker.touch()


def _processes() -> dict[int, tuple[int, int, float, bool]]:
    """Every process: pid -> (parent pid, resident bytes, CPU seconds, is a Ray worker)."""
    ticks = os.sysconf("SC_CLK_TCK")
    table = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            ray = Path(f"/proc/{entry}/cmdline").read_bytes().startswith(b"ray::")
        except OSError:
            continue
        cpu = (int(stat[11]) + int(stat[12])) / ticks
        table[int(entry)] = (int(stat[1]), int(stat[21]) * PAGE, cpu, ray)
    return table


def _tree(root: int, table: dict[int, tuple[int, int, float, bool]]) -> list[int]:
    pids, todo = [], [root]
    while todo:
        pid = todo.pop()
        pids.append(pid)
        todo.extend(child for child, (parent, *_) in table.items() if parent == pid)
    return pids


def _tree_rss(root: int) -> int:
    """Resident bytes of ``root`` and all its descendants."""
    table = _processes()
    return sum(table[pid][1] for pid in _tree(root, table) if pid in table)


def _cpu_seconds() -> float:
    """CPU seconds used so far by this process, its live descendants (the pool's workers) and
    the Ray workers (``ray::…`` processes, which are not our children)."""
    table = _processes()
    pids = set(_tree(os.getpid(), table)) | {pid for pid, p in table.items() if p[3]}
    return sum(table[pid][2] for pid in pids if pid in table)


class PeakRss:
    """Samples the resident set of this process tree twice a second; ``peak`` is the largest."""

    def __init__(self) -> None:
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._stop.wait(0.5):
            self.peak = max(self.peak, _tree_rss(os.getpid()))

    def __enter__(self) -> PeakRss:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._stop.set()
        self._thread.join()


def fingerprint(out: Path) -> str:
    """A digest of the sorted ledger rows and every report, to compare backends."""
    digest = hashlib.sha256()
    for line in sorted((out / "ledger.jsonl").read_text(encoding="utf-8").splitlines()):
        digest.update(line.encode() + b"\n")
    for path in sorted((out / "reports").rglob("*.json")):
        digest.update(str(path.relative_to(out)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def run(corpus: Path, out: Path, backend: Backend, memory: bool) -> tuple[Summary, int, str, float]:
    """One batch into a fresh folder: its summary, peak RSS (0 unless sampled), fingerprint, and
    the CPU seconds it took (this process, the pool's workers or Ray's), measured before the
    backend closes and its workers go."""
    shutil.rmtree(out, ignore_errors=True)
    cpu = _cpu_seconds()
    try:
        if memory:
            with PeakRss() as rss:
                summary = run_batch([str(corpus)], JsonFolderSink(out), backend)
            peak = rss.peak
        else:
            summary, peak = run_batch([str(corpus)], JsonFolderSink(out), backend), 0
        cpu = _cpu_seconds() - cpu
    finally:
        backend.close()
    return summary, peak, fingerprint(out), cpu


def store(corpus: Path, url: str, ledger: Path, backend: Backend) -> None:
    """Audit the corpus on ``backend`` into an emptied database; print hands/s, the CPU per hand
    (this process, the pool's workers or Ray's) and rows per hand."""
    from sqlalchemy import MetaData, func, select

    from chaodipi.service.db import make_engine
    from chaodipi.service.models import Finding, Game, GamePlayer

    engine = make_engine(url)
    with engine.begin() as connection:
        reflected = MetaData()
        reflected.reflect(connection)
        reflected.drop_all(connection)
    ledger.unlink(missing_ok=True)
    cpu = _cpu_seconds()
    try:
        summary = run_batch([str(corpus)], DatabaseSink(url, ledger=ledger), backend)
        cpu = _cpu_seconds() - cpu
    finally:
        backend.close()
    with engine.connect() as connection:
        rows = {
            model.__name__: connection.scalar(select(func.count()).select_from(model)) or 0
            for model in (Game, GamePlayer, Finding)
        }
    engine.dispose()
    per_hand = ", ".join(f"{n / summary.new_hands:.2f} {name}" for name, n in rows.items())
    where = f"{backend.name}, {backend.workers} CPUs"
    print(
        f"database ({where}): {summary.new_hands:,} hands in {summary.elapsed:6.1f} s "
        f"= {summary.hands_per_second:7,.0f} hands/s into {engine.url.get_backend_name()}, "
        f"CPU {cpu / summary.new_hands * 1e3:.2f} ms/hand (this process + workers; the database "
        f"server's not counted) ({per_hand} rows per hand)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=20000)
    parser.add_argument("--unique", type=int, default=2000)
    parser.add_argument("--cores", default="1,2", help="comma-separated core counts (local)")
    parser.add_argument("--ray", action="store_true", help="also run on Ray with 2 CPUs")
    parser.add_argument("--memory", action="store_true", help="sample the peak resident set")
    parser.add_argument("--database", help="also store into this database URL (emptied first)")
    parser.add_argument("--corpus", type=Path, help="corpus folder (default: in the temp dir)")
    args = parser.parse_args()
    print(describe_build())
    corpus = args.corpus or Path(tempfile.gettempdir()) / f"chaodipi-corpus-{args.hands}"
    make_corpus(corpus, args.hands, args.unique)
    scratch = Path(tempfile.mkdtemp(prefix="chaodipi-batch-"))
    results: dict[str, tuple[float, str]] = {}
    cpu_per_hand: dict[int, float] = {}
    try:
        every = os.sched_getaffinity(0)
        for n in (int(c) for c in args.cores.split(",") if c):
            os.sched_setaffinity(0, sorted(every)[:n])  # the workers inherit it
            out = scratch / f"local-{n}"
            summary, peak, prints, cpu = run(corpus, out, LocalBackend(n), args.memory)
            os.sched_setaffinity(0, every)
            rate = summary.hands_per_second
            results[f"local {n}"] = (rate, prints)
            cpu_per_hand[n] = cpu / summary.new_hands
            shown = f", peak RSS {peak / 2**20:,.0f} MiB (parent + workers)" if peak else ""
            print(
                f"local, {n} core(s):   {summary.new_hands:,} hands in {summary.elapsed:6.1f} s "
                f"= {rate:7,.0f} hands/s, {summary.findings:,} findings{shown}"
            )
            # Other processes on a shared machine take cores from the run: say how much it got.
            print(
                f"    CPU {cpu_per_hand[n] * 1e3:.2f} ms/hand; the run got "
                f"{cpu / summary.elapsed:.2f} of its {n} core(s); on {n} free core(s): "
                f"{n / cpu_per_hand[n]:,.0f} hands/s"
            )
        if args.ray:
            from chaodipi.batch.ray_backend import RayBackend

            start = time.perf_counter()
            backend = RayBackend(num_cpus=2)
            started = time.perf_counter() - start
            summary, _, prints, cpu = run(corpus, scratch / "ray", backend, False)
            results["ray 2"] = (summary.hands_per_second, prints)
            print(
                f"ray, 2 CPUs:         {summary.new_hands:,} hands in {summary.elapsed:6.1f} s "
                f"= {summary.hands_per_second:7,.0f} hands/s, {summary.findings:,} findings "
                f"(ray.init {started:.1f} s, not counted)"
            )
            print(
                f"    CPU {cpu / summary.new_hands * 1e3:.2f} ms/hand (driver + workers); the "
                f"run got {cpu / summary.elapsed:.2f} of 2 CPUs; on 2 free CPUs: "
                f"{2 * summary.new_hands / cpu:,.0f} hands/s"
            )
        if args.database:
            store(corpus, args.database, scratch / "ledger.jsonl", LocalBackend(2))
            if args.ray:
                from chaodipi.batch.ray_backend import RayBackend

                store(corpus, args.database, scratch / "ledger.jsonl", RayBackend(num_cpus=2))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if "local 1" in results and "local 2" in results:
        print(
            f"2 cores / 1 core: {results['local 2'][0] / results['local 1'][0]:.2f}x measured, "
            f"{2 * cpu_per_hand[1] / cpu_per_hand[2]:.2f}x on free cores (from CPU per hand)"
        )
    if "ray 2" in results and "local 2" in results:
        print(f"ray 2 CPUs / local 2 cores: {results['ray 2'][0] / results['local 2'][0]:.2f}x")
    digests = [p for _, p in results.values()]
    if len(digests) > 1:
        same = len(set(digests)) == 1
        print(f"identical rows and reports across runs: {same} ({', '.join(digests)})")


if __name__ == "__main__":
    main()
