import Benchmark
import Foundation
import Tether
@_spi(Benchmarking) import TetherFileStorage
import TetherInMemory

/// 10,000 mutations in one throttle window (1 s by default): how many writes reach the file,
/// and what the mutations cost the caller next to the same mutations of an in-memory value
/// (benchmark 4).
func throttleBenchmarks() {
  let mutations = 10_000
  Benchmark(
    "throttle.file", configuration: once([.wallClock, counted("writes"), counted("mutations.us")])
  ) { benchmark in
    let folder = scratchFolder("throttle")
    for round in 0..<20 {
      let key: FileStorageKey<Int> = .fileStorage(folder.appending(path: "n\(round).json"))
      let shared = Shared(wrappedValue: 0, key)
      let elapsed = ContinuousClock().measure {
        for _ in 0..<mutations { shared.withLock { $0 += 1 } }
      }
      await TetherSystem.flush()
      benchmark.measurement(counted("writes"), key.writeCount)
      benchmark.measurement(counted("mutations.us"), microseconds(elapsed))
    }
  }
  Benchmark("throttle.memory", configuration: once([counted("mutations.us")])) { benchmark in
    for round in 0..<20 {
      let shared = Shared(wrappedValue: 0, .inMemory("throttle.\(round)"))
      let elapsed = ContinuousClock().measure {
        for _ in 0..<mutations { shared.withLock { $0 += 1 } }
      }
      benchmark.measurement(counted("mutations.us"), microseconds(elapsed))
    }
  }
}
