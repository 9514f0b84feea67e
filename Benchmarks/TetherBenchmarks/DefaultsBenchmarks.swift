import Benchmark
import Foundation
import Tether
import TetherDefaults

/// Defaults get and set against Foundation's `UserDefaults` on Linux (benchmark 8).
///
/// Foundation's `set` alone never reaches the file on Linux, so its set is `set` +
/// `synchronize()`. Tether's set is `withLock`, which the throttled writer persists behind the
/// caller (and `atexit` flushes); `withLock` + `save()` is measured too (`defaults.save`), on
/// disk when it returns like `synchronize()`.
func defaultsBenchmarks() {
  let gets = 100_000
  let sets = 1_000
  let getConfiguration = Benchmark.Configuration(
    metrics: [.wallClock], timeUnits: .microseconds, warmupIterations: 3,
    maxDuration: .seconds(3), maxIterations: 60)

  let folder = scratchFolder("defaults")
  let store = DefaultsStore(file: folder.appending(path: "defaults.ini"))
  let count = Shared(wrappedValue: 0, .defaults("count", store: store))
  let suite = "tether-bench-\(ProcessInfo.processInfo.processIdentifier)"
  let foundation = UserDefaults(suiteName: suite)!

  Benchmark("defaults.get.tether", configuration: getConfiguration) { _ in
    for _ in 0..<gets { blackHole(count.wrappedValue) }
  }
  Benchmark("defaults.get.foundation", configuration: getConfiguration) { _ in
    for _ in 0..<gets { blackHole(foundation.integer(forKey: "count")) }
  }
  Benchmark("defaults.set.tether", configuration: getConfiguration) { _ in
    for _ in 0..<sets { count.withLock { $0 += 1 } }
  }
  defaultsSaveBenchmark(
    count: count, watched: folder.appending(path: "beside.ini"), foundation: foundation,
    suite: suite)
}

/// A defaults key's `withLock` + `save()` against five baselines, taking turns in one
/// benchmark (one save of each per turn, the order rotating), each side's time per save a
/// custom metric in microseconds:
/// - `tether.us`: `withLock` + `save()`, on disk when it returns, replaced atomically;
/// - `atomic.us`: the file's new bytes written with `Data.write(options: .atomic)`, in a folder
///   nobody watches;
/// - `watched.us`: the same, beside the defaults file, in the folder its key watches: the kernel
///   then tells the watcher of every step (the temp file made, written, renamed), on the
///   writing thread, as it does for Tether's save;
/// - `locked.us`: what a save must do to lose nothing another process wrote, by hand: the
///   file's lock, the read of what it holds now, its `count` line changed, an atomic write
///   (temporary file, `fsync`, `rename`), as the file transaction's baseline does;
/// - `locked-watched.us`: the same, of a file beside the defaults file, in the watched folder:
///   the whole of what a save must do, by hand;
/// - `foundation.us`: `UserDefaults` set + `synchronize()`, which rewrites the file in place.
///
/// Apart, each in a process of its own, the same save's median moved by up to 1.5× from one
/// process to the next on this VM (an `fsync` is most of it), and the ratio with it.
private func defaultsSaveBenchmark(
  count: Shared<Int>, watched: URL, foundation: UserDefaults, suite: String
) {
  let sides = [
    "tether.us", "atomic.us", "locked.us", "foundation.us", "watched.us", "locked-watched.us",
  ]
  let byHand = scratchFolder("defaults-byhand").appending(path: "defaults.ini")
  let locked = scratchFolder("defaults-locked-byhand").appending(path: "defaults.ini")
  let lockedWatched = watched.deletingLastPathComponent().appending(path: "locked.ini")
  var written = 0
  /// The line changed under the file's lock, read and written by hand.
  func lockedMerge(into file: URL) throws {
    let lock = file.deletingLastPathComponent().appending(path: ".\(file.lastPathComponent).lock")
    let descriptor = open(lock.path, O_RDONLY | O_CREAT | O_CLOEXEC, 0o600)
    guard descriptor >= 0, flock(descriptor, LOCK_EX) == 0 else {
      throw BenchmarkFailure("cannot lock \(lock.path)")
    }
    defer { close(descriptor) }
    let lines = String(decoding: try Data(contentsOf: file), as: UTF8.self)
      .split(separator: "\n", omittingEmptySubsequences: false)
    let merged = lines.map { $0.hasPrefix("count =") ? "count = \(written)" : String($0) }
    try writeAtomically(Data(merged.joined(separator: "\n").utf8), to: file)
  }
  func save(_ side: Int) async throws {
    written += 1
    switch side {
    case 0:
      count.withLock { $0 += 1 }
      try await count.save()
    case 1:
      try Data("count = \(written)\n".utf8).write(to: byHand, options: .atomic)
    case 2:
      try lockedMerge(into: locked)
    case 4:
      try Data("count = \(written)\n".utf8).write(to: watched, options: .atomic)
    case 5:
      try lockedMerge(into: lockedWatched)
    default:
      foundation.set(foundation.integer(forKey: "count") + 1, forKey: "count")
      foundation.synchronize()
    }
  }
  Benchmark(
    "defaults.save",
    configuration: Benchmark.Configuration(
      metrics: sides.map(counted), warmupIterations: 0, maxDuration: .seconds(60),
      maxIterations: 1)
  ) { benchmark in
    try writeAtomically(Data("count = 0\n".utf8), to: locked)
    try writeAtomically(Data("count = 0\n".utf8), to: lockedWatched)
    for side in sides.indices { try await save(side) }
    let clock = ContinuousClock()
    for turn in 0..<400 {
      for offset in sides.indices {
        let side = (turn + offset) % sides.count
        let start = clock.now
        try await save(side)
        benchmark.measurement(counted(sides[side]), microseconds(clock.now - start))
      }
    }
  } teardown: {
    foundation.removePersistentDomain(forName: suite)
  }
}
