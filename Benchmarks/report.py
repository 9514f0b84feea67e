#!/usr/bin/env python3
"""Runs the benchmarks and prints DESIGN §11's table: metric, Tether, baseline, ratio, target, met.

Each row compares a Tether figure with a baseline measured in the same run. Figures are medians
(p50) unless the row says otherwise; nanosecond rows with a target are paired: Tether and its
baseline take turns in one benchmark (PairedBenchmarks.swift).
The benchmarks run 3 times (`--runs N` to change it); each cell is the range over the runs, and
a row is met when every run met it. Other arguments (`--filter REGEX`) go to the runner.
"""
import re
import contextlib
import glob
import os
import pathlib
import shutil
import socket
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
SCALES = {"(K)": 1e3, "(M)": 1e6, "(G)": 1e9}


@contextlib.contextmanager
def postgres_server():
    """A throwaway PostgreSQL cluster on 127.0.0.1 and a free port, in a temporary folder, made
    with Debian's newest binaries: yields the environment that names it to the benchmarks, then
    stops it and removes the folder, also when the run fails. initdb refuses to run as root, so
    as root the cluster is the postgres user's."""
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                      key=lambda path: int(pathlib.Path(path).parts[-3]))
    if not versions:
        sys.exit("PostgreSQL is not installed (make bench installs it: apt-get install postgresql)")
    bin_dir = pathlib.Path(versions[-1]).parent
    as_owner = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    folder = pathlib.Path(tempfile.mkdtemp(prefix="tether-bench-postgres-"))
    data = folder / "data"
    started = False
    try:
        folder.chmod(0o755)  # The cluster's owner reaches its folders through this one.
        password = os.urandom(12).hex()
        pwfile = folder / "initdb-password"  # The cluster owner's, for initdb.
        password_file = folder / "password"  # The benchmarks', mode 0600 as Tether requires.
        for path in (pwfile, password_file):
            path.write_text(password + "\n")
            path.chmod(0o600)
        data.mkdir()
        (folder / "sockets").mkdir()
        if as_owner:
            for path in (pwfile, data, folder / "sockets"):
                shutil.chown(path, "postgres", "postgres")
        quiet = dict(stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        made = subprocess.run(
            as_owner + [bin_dir / "initdb", "-D", data, "--auth=scram-sha-256", "-U", "tether",
                        f"--pwfile={pwfile}", "--no-sync"], **quiet)
        if made.returncode != 0:
            sys.exit(f"initdb failed:\n{made.stdout}")
        with socket.socket() as probe:  # A port free now, most likely still free below.
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        options = (f"-c listen_addresses=127.0.0.1 -c port={port} -c fsync=off "
                   f"-c unix_socket_directories={folder / 'sockets'}")
        started = True
        run = subprocess.run(
            as_owner + [bin_dir / "pg_ctl", "-D", data, "-l", data / "server.log", "-o", options,
                        "-w", "start"], **quiet)
        if run.returncode != 0:
            log = data / "server.log"
            sys.exit(f"the PostgreSQL server did not start:\n{run.stdout}"
                     f"{log.read_text() if log.exists() else ''}")
        yield {"TETHER_BENCH_POSTGRES_URL": f"postgres://tether@127.0.0.1:{port}/postgres",
               "TETHER_BENCH_POSTGRES_PASSWORD_FILE": str(password_file)}
    finally:
        if started:
            subprocess.run(as_owner + [bin_dir / "pg_ctl", "-D", data, "-m", "fast", "-w",
                                       "stop"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
        shutil.rmtree(folder, ignore_errors=True)


def run(out, arguments):
    print("Building and running Benchmarks/ (release; about a minute after the first build)…",
          flush=True)
    with postgres_server() as server:
        result = subprocess.run(
            ["swift", "package", "--allow-writing-to-package-directory", "benchmark",
             "--format", "histogramPercentiles", "--path", out, "--no-progress",
             *arguments],
            cwd=HERE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            env={**os.environ, **server})
    # The runner exits 0 when a benchmark throws: its message is the sign.
    failed = re.findall(r"^Benchmark \S+ failed with .*$", result.stdout, re.MULTILINE)
    if result.returncode != 0 or failed:
        sys.stdout.write(result.stdout)
        sys.exit(f"the benchmarks failed (exit {result.returncode}): " + "; ".join(failed))


def load(out):
    """{(benchmark, metric): {percentile: value}} from the exported TSV files."""
    figures = {}
    for path in pathlib.Path(out).glob("*.histogram.percentiles.tsv"):
        name = path.name.split(".TetherBenchmarks.", 1)[1].removesuffix(".histogram.percentiles.tsv")
        benchmark, metric = split(name)
        lines = path.read_text().splitlines()
        scale = next((factor for unit, factor in SCALES.items() if unit in lines[0]), 1)
        figures[(benchmark, metric)] = {
            int(p): float(v) * scale for p, v in (line.split("\t") for line in lines[1:])}
    return figures


def split(name):
    """'defaults.get.tether.wallClock' -> ('defaults.get.tether', 'wallClock'); custom metrics
    follow two-part benchmark names: 'latency.close.raw.us' -> ('latency.close', 'raw.us')."""
    if name.endswith(".wallClock"):
        return name.removesuffix(".wallClock"), "wallClock"
    parts = name.split(".")
    return ".".join(parts[:2]), ".".join(parts[2:])


def slow_path_rows(ratio_row, at):
    """The slow paths a user hits, each against the same work by hand in the same run."""
    paired = lambda b, side: at(b, f"{side}.ps") / 1000  # ps -> ns per operation
    ratio_row("withLock on a 100 KB Equatable value ([Int]) vs copy + mutate + == by hand"
              " (paired)", paired("paired.large", "tether") / 1000,
              paired("paired.large", "baseline") / 1000, "µs", 1.5, "≤ 1.5×")
    ratio_row("withLock on a defaults key vs the in-memory key (paired)",
              paired("paired.defaults", "tether"), paired("paired.defaults", "baseline"), "ns",
              1.5, "≤ 1.5×")
    ratio_row("100 changes iterators, 1,000 changes vs 100 AsyncStream continuations fed by hand",
              at("fanout.changes.tether"), at("fanout.changes.streams"), "µs", 1.5, "≤ 1.5×")
    ratio_row("100 Observation trackers of a @Shared, 1,000 changes vs of a plain @Observable",
              at("fanout.observation.tether"), at("fanout.observation.observable"), "µs", 1.5,
              "≤ 1.5×")


def main():
    arguments = sys.argv[1:]
    runs = 3
    if "--runs" in arguments:
        at = arguments.index("--runs")
        runs = int(arguments[at + 1])
        del arguments[at:at + 2]
    tables = []
    for number in range(runs):
        print(f"run {number + 1} of {runs}", flush=True)
        with tempfile.TemporaryDirectory() as out:
            run(out, arguments)
            tables.append(rows_of(load(out), filtered=bool(arguments)))
    print(f"\nEach cell: the range over {runs} runs; met: in every run.\n")
    print("| metric | Tether | baseline | ratio | target | met |")
    print("|---|---|---|---|---|---|")
    for metric, tether, baseline, ratio, target, met in merged(tables):
        print(f"| {metric} | {tether} | {baseline} | {ratio} | {target} | {met} |")
    return 0


def merged(tables):
    """One row per metric from the runs' rows (the same rows, in the same order, each run)."""
    for runs in zip(*tables):
        metric, target = runs[0][0], runs[0][4]
        cells = [span([row[column] for row in runs]) for column in (1, 2, 3)]
        verdicts = [row[5] for row in runs]
        if target == "—" or any(verdict is None for verdict in verdicts):
            met = "n/a"
        elif all(verdicts):
            met = "yes"
        elif not any(verdicts):
            met = "**no**"
        else:
            met = f"**{sum(map(bool, verdicts))} of {len(verdicts)} runs**"
        yield (metric, *cells, target, met)


def span(cells):
    """'1.2 ms', '1.5 ms' -> '1.2–1.5 ms'; cells that are not a number and a unit, or agree,
    are shown once (or all, when they differ)."""
    if len(set(cells)) == 1:
        return cells[0]
    parsed = [re.fullmatch(r"([0-9][0-9.,]*)(.*)", cell) for cell in cells]
    if not all(parsed) or len({match.group(2) for match in parsed}) != 1:
        return " / ".join(cells)
    numbers = sorted(parsed, key=lambda match: float(match.group(1).replace(",", "")))
    return f"{numbers[0].group(1)}–{numbers[-1].group(1)}{numbers[0].group(2)}"


def rows_of(f, filtered):
    """The table's rows from one run's figures: (metric, Tether, baseline, ratio, target, met),
    met being None where the row has no target."""

    def at(benchmark, metric="wallClock", percentile=50):
        if filtered and (benchmark, metric) not in f:
            return float("nan")  # Not run: its rows are left out below.
        return f[(benchmark, metric)][percentile]

    ns = lambda b: at(b) / 1000  # µs per million operations -> ns per operation
    ms = lambda v: v / 1000
    rows = []

    def ratio_row(metric, tether, baseline, unit, limit, target):
        ratio = tether / baseline
        rows.append((metric, f"{tether:.1f} {unit}", f"{baseline:.1f} {unit}", f"{ratio:.2f}×",
                     target, ratio <= limit))

    # Observation is part of every read and change (DESIGN §2): its own cost, a Mutex inside
    # ObservationRegistrar.access / withMutation, is the floor. Rows with a target of
    # nanoseconds are paired (PairedBenchmarks.swift): both sides take turns in one process.
    paired = lambda b, side: at(b, f"{side}.ps") / 1000  # ps -> ns per operation
    for benchmark, metric, limit in (
            ("paired.read", "read of a @Shared value (in-memory) vs Mutex<Int> read +"
             " ObservationRegistrar.access (the Observation floor; paired)", 1.5),
            ("paired.increment", "withLock increment (in-memory) vs Mutex increment inside"
             " ObservationRegistrar.withMutation (the Observation floor; paired)", 2)):
        ratio_row(metric, paired(benchmark, "tether"), paired(benchmark, "baseline"), "ns",
                  limit, f"≤ {limit:g}×")
    ratio_row("read of a @Shared value vs a bare Mutex<Int> read",
              ns("read.shared"), ns("read.mutex"), "ns", float("inf"), "—")
    ratio_row("withLock increment vs a bare Mutex increment",
              ns("increment.shared"), ns("increment.mutex"), "ns", float("inf"), "—")
    ratio_row("increment of a value nothing has read yet (no Observation) vs Mutex increment",
              ns("increment.unread"), ns("increment.mutex"), "ns", float("inf"), "—")
    for benchmark, metric in (
            ("paired.file", "withLock on a file-backed key vs in-memory key (paired)"),
            ("paired.registered", "withLock on a registered key (config → memory) vs the"
             " in-memory key (paired)")):
        ratio_row(metric, paired(benchmark, "tether"), paired(benchmark, "baseline"), "ns", 1.5,
                  "≤ 1.5×")
    writes = at("throttle.file", "writes", 100)
    rows.append(("10,000 mutations in one throttle window: file writes (max of 20 rounds)",
                 f"{writes:.0f}", "2", "", "exactly 2",
                 writes == 2 and at("throttle.file", "writes", 0) == 2))
    ratio_row("10,000 mutations in one window: time, file key vs in-memory key",
              ms(at("throttle.file", "mutations.us")), ms(at("throttle.memory", "mutations.us")),
              "ms", float("inf"), "—")
    # External edit → holder sees it (LatencyBenchmarks.swift). An edit that ends a write is
    # delivered at once: measured against the same edit's raw inotify event on a bare inotify
    # descriptor watching the same folder. Other edits wait for the settle delay (50 ms); a
    # writer that keeps the file open, for the maximum wait (500 ms).
    for benchmark, edit, event in (("latency.rename", "a file renamed into place", "IN_MOVED_TO"),
                                   ("latency.close", "a write closed after writing",
                                    "IN_CLOSE_WRITE")):
        for percentile, limit in ((50, 2), (99, 10)):
            seen = ms(at(benchmark, "seen.us", percentile))
            raw = ms(at(benchmark, "raw.us", percentile))
            rows.append((f"external edit → holder sees it: {edit}, p{percentile} (baseline: its"
                         f" raw {event} on a bare inotify descriptor)", f"{seen:.2f} ms",
                         f"{raw:.2f} ms", f"{seen - raw:.2f} ms later", f"≤ raw + {limit} ms",
                         seen <= raw + limit))
    # FileWatcher's settle delay and maximum wait, in ms.
    for benchmark, edit, wait, wait_ms in (
            ("latency.remove", "other edits (a removal)", "settle", 50),
            ("latency.open", "a writer keeping the file open (in-place modify without close)",
             "max wait", 500)):
        seen = ms(at(benchmark, "seen.us"))
        raw = ms(at(benchmark, "raw.us"))
        rows.append((f"external edit → holder sees it: {edit}, p50 (baseline: its raw inotify"
                     " event)", f"{seen:.2f} ms", f"{raw:.2f} ms",
                     f"{seen - wait_ms:.2f} ms past the {wait}", f"≤ {wait} + 2 ms",
                     seen <= wait_ms + 2))
    watches = at("watches.tether", "inotify-watches", 100)
    ancestors = at("watches.tether", "ancestor-watches", 100)
    # The folders' ancestors up to / are watched for their moves (the benchmark's folders sit
    # under /tmp/tether-bench-watches: two ancestors, / cannot move), one each however many
    # folders share them.
    rows.append(("10,000 file keys in 100 folders: inotify watches (+ their ancestors' watches)",
                 f"{watches:.0f} + {ancestors:.0f}", "101", "",
                 "100 + 1 control", watches == 101 and ancestors <= 3))
    start = ms(at("watches.tether", "start.us"))
    by_hand = ms(at("watches.byhand", "start.us"))
    rows.append(("10,000 file keys: start every holder (baseline: read + decode by hand)",
                 f"{start:.0f} ms", f"{by_hand:.0f} ms", f"{start / by_hand:.2f}×", "≤ 1.5×",
                 start / by_hand <= 1.5))
    calls = ms(at("watches.calls", "start.us"))
    rows.append(("10,000 file keys: start vs the same system calls + decode by hand (open, "
                 "read until a short read, close, in watched folders: the floor)",
                 f"{start:.0f} ms", f"{calls:.0f} ms", f"{start / calls:.1f}×", "—", None))
    rows.append(("10,000 file keys: resident memory per key",
                 f"{at('watches.tether', 'rss-per-key.bytes'):.0f} B", "", "", "—", None))
    ratio_row("save of a 1 MB value vs the key's JSONEncoder + atomic write by hand",
              ms(at("save1mb.tether")), ms(at("save1mb.byhand")), "ms", 1.2, "≤ 1.2×")
    # In turns in one benchmark (TransactionBenchmarks.swift), as the defaults saves are.
    ratio_row("transaction on a file key vs flock + read + decode + encode + atomic write by hand"
              " (in turns)", at("transaction.file", "tether.us"),
              at("transaction.file", "byhand.us"), "µs", 1.2, "≤ 1.2×")
    ratio_row("transaction on an in-memory key (10,000) vs withLock (10,000)",
              ms(at("transaction.memory.tether")), ms(at("transaction.memory.withlock")), "ms",
              float("inf"), "—")
    ratio_row("defaults get (100,000) vs Foundation UserDefaults",
              ms(at("defaults.get.tether")), ms(at("defaults.get.foundation")), "ms", 1, "< 1×")
    # The saves take turns in one benchmark (DefaultsBenchmarks.swift): one of each per turn.
    save = lambda side: at("defaults.save", f"{side}.us")
    ratio_row("defaults set (withLock, persisted behind the caller) vs UserDefaults set +"
              " synchronize()",
              at("defaults.set.tether") / 1000, save("foundation"), "µs", 1, "< 1×")
    ratio_row("defaults set + save() (on disk on return, atomic) vs UserDefaults set +"
              " synchronize() (on disk on return, in place; in turns)",
              save("tether"), save("foundation"), "µs", 1, "< 1×")
    ratio_row("defaults set + save() vs the atomic replace alone, by hand (Data.write .atomic;"
              " in turns)", save("tether"), save("atomic"), "µs", 1.2, "≤ 1.2×")
    ratio_row("defaults set + save() vs the same guarantee by hand: flock + read + merge the line"
              " + atomic write (in turns)", save("tether"), save("locked"), "µs", float("inf"),
              "—")
    ratio_row("defaults: flock + read + merge + atomic write by hand vs Data.write .atomic alone"
              " (in turns)", save("locked"), save("atomic"), "µs", float("inf"), "—")
    ratio_row("defaults set + save() vs Data.write .atomic in the folder the key watches (the"
              " kernel tells the watcher of each step, on the writing thread; in turns)",
              save("tether"), save("watched"), "µs", float("inf"), "—")
    ratio_row("defaults: Data.write .atomic in the watched folder vs in a folder nobody watches"
              " (in turns)", save("watched"), save("atomic"), "µs", float("inf"), "—")
    ratio_row("defaults set + save() vs the same guarantee by hand in the watched folder: flock +"
              " read + merge the line + atomic write, beside the defaults file (in turns)",
              save("tether"), save("locked-watched"), "µs", float("inf"), "—")
    ratio_row("config bootstrap, 1,000 mapped keys (baseline: split the text by hand)",
              ms(at("config.tether")), ms(at("config.byhand")), "ms", float("inf"), "—")

    # The postgres strategy against the same work by hand on plain PostgresNIO connections to
    # the same throwaway server (postgres_server above).
    for percentile, limit, target in ((50, 2, "p50 ≤ 2×"), (99, float("inf"), "—")):
        ratio_row(f"postgres: row updated on host A → holder on host B sees it, p{percentile}"
                  " (baseline: raw pg_notify → a LISTENing connection + one row read)",
                  at("postgres.edit", "tether.us", percentile),
                  at("postgres.edit", "raw.us", percentile), "µs", limit, target)
    ratio_row("postgres: row updated → holder sees it, p50, vs a raw UPDATE of a row (its"
              " trigger's NOTIFY) → a LISTENing connection + one row read (floor)",
              at("postgres.edit", "tether.us"), at("postgres.edit", "raw-update.us"), "µs",
              float("inf"), "—")
    ratio_row("postgres: 1,000 withLock + save() of one key vs the store's version-checked"
              " upsert, awaited each time, on a raw connection",
              ms(at("postgres.save.tether")), ms(at("postgres.save.byhand")), "ms",
              float("inf"), "—")
    ratio_row("postgres: a new key's holder until its first load is done (p50 of 200) vs one"
              " SELECT of the row by hand",
              at("postgres.start", "tether.us"), at("postgres.start", "byhand.us"), "µs",
              float("inf"), "—")

    slow_path_rows(ratio_row, at)

    # Contention (ContentionBenchmarks.swift): the same work on 8 threads at once and on one.
    for benchmark, metric in (
            ("contention.withLock", "withLock on one in-memory key from 8 threads at once"
             " (8 × 25,000) vs the same 200,000 on one thread"),
            ("contention.keys", "file keys made and dropped from 8 threads at once (8 × 600, a"
             " folder each) vs the same 4,800 on one thread")):
        ratio_row(metric, ms(at(benchmark, "threads.us")), ms(at(benchmark, "one.us")), "ms",
                  float("inf"), "—")

    if filtered:
        rows = [row for row in rows if "nan" not in row[1] + row[2]]
    return rows


if __name__ == "__main__":
    sys.exit(main())
