import Benchmark
import Foundation
import Tether
import TetherDefaults

/// Defaults get and set against Foundation's `UserDefaults` on Linux (benchmark 8).
///
/// Foundation's `set` alone never reaches the file on Linux, so its set is `set` +
/// `synchronize()`. Tether's set is `withLock`, which the throttled writer persists behind the
/// caller (and `atexit` flushes); `withLock` + `save()` is also measured: on disk when it returns,
/// like `synchronize()`, but replaced atomically where `synchronize()` rewrites the file in place.
/// The same atomic replace done by hand is the floor of that row.
func defaultsBenchmarks() {
  let gets = 100_000
  let sets = 1_000
  let getConfiguration = Benchmark.Configuration(
    metrics: [.wallClock], timeUnits: .microseconds, warmupIterations: 3,
    maxDuration: .seconds(3), maxIterations: 60)
  let setConfiguration = Benchmark.Configuration(
    metrics: [.wallClock], timeUnits: .microseconds, warmupIterations: 3,
    maxDuration: .seconds(3), maxIterations: 500)

  let store = DefaultsStore(file: scratchFolder("defaults").appending(path: "defaults.ini"))
  let count = Shared(wrappedValue: 0, .defaults("count", store: store))
  let byHand = scratchFolder("defaults-byhand").appending(path: "defaults.ini")
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
  Benchmark("defaults.save.tether", configuration: setConfiguration) { _ in
    count.withLock { $0 += 1 }
    try await count.save()
  }
  var written = 0
  Benchmark("defaults.save.atomic-byhand", configuration: setConfiguration) { _ in
    written += 1
    try Data("count = \(written)\n".utf8).write(to: byHand, options: .atomic)
  }
  Benchmark("defaults.set.foundation", configuration: setConfiguration) { _ in
    foundation.set(foundation.integer(forKey: "count") + 1, forKey: "count")
    foundation.synchronize()
  } teardown: {
    foundation.removePersistentDomain(forName: suite)
  }
}
