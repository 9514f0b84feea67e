import Benchmark
import Foundation
import Tether
import TetherDefaults

/// Defaults get and set against Foundation's `UserDefaults` on Linux; a set is written through
/// to the file at once on both sides: `save()` here, `synchronize()` there (benchmark 8).
func defaultsBenchmarks() {
  let gets = 100_000
  let getConfiguration = Benchmark.Configuration(
    metrics: [.wallClock], timeUnits: .microseconds, warmupIterations: 3,
    maxDuration: .seconds(3), maxIterations: 60)
  let setConfiguration = Benchmark.Configuration(
    metrics: [.wallClock], timeUnits: .microseconds, warmupIterations: 3,
    maxDuration: .seconds(3), maxIterations: 500)

  let store = DefaultsStore(file: scratchFolder("defaults").appending(path: "defaults.ini"))
  let count = Shared(wrappedValue: 0, .defaults("count", store: store))
  let suite = "tether-bench-\(ProcessInfo.processInfo.processIdentifier)"
  let foundation = UserDefaults(suiteName: suite)!

  Benchmark("defaults.get.tether", configuration: getConfiguration) { _ in
    for _ in 0..<gets { blackHole(count.wrappedValue) }
  }
  Benchmark("defaults.get.foundation", configuration: getConfiguration) { _ in
    for _ in 0..<gets { blackHole(foundation.integer(forKey: "count")) }
  }
  Benchmark("defaults.set.tether", configuration: setConfiguration) { _ in
    count.withLock { $0 += 1 }
    try await count.save()
  }
  Benchmark("defaults.set.foundation", configuration: setConfiguration) { _ in
    foundation.set(foundation.integer(forKey: "count") + 1, forKey: "count")
    foundation.synchronize()
  } teardown: {
    foundation.removePersistentDomain(forName: suite)
  }
}
