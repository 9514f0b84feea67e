import Benchmark
import Foundation
import Tether
import TetherFileStorage
import TetherInMemory

/// A transaction of a file key against the same read-modify-write done by hand: the sibling
/// lock file's `flock`, read, decode, increment, encode, atomic write (temporary file, `fsync`,
/// `rename`), unlock. And an in-memory transaction against `withLock`, for what the machinery
/// costs where there is no I/O.
func transactionBenchmarks() {
  // The two sides take turns in one benchmark, one transaction of each per turn, the order
  // alternating: apart, each in a process of its own, the same loop's median moved by up to
  // 1.5× from one process to the next (an `fsync` is most of it), and the ratio with it.
  Benchmark(
    "transaction.file",
    configuration: Benchmark.Configuration(
      metrics: [counted("tether.us"), counted("byhand.us")], warmupIterations: 0,
      maxDuration: .seconds(60), maxIterations: 1)
  ) { benchmark in
    let tetherFile = scratchFolder("transaction-tether").appending(path: "counter.json")
    let counter = Shared(wrappedValue: 0, .fileStorage(tetherFile))
    let url = scratchFolder("transaction-byhand").appending(path: "counter.json")
    let lock = url.deletingLastPathComponent().appending(path: ".counter.json.lock")
    let (encoder, decoder) = (JSONEncoder(), JSONDecoder())
    func increment() throws {
      let descriptor = open(lock.path, O_RDONLY | O_CREAT | O_CLOEXEC, 0o600)
      guard descriptor >= 0, flock(descriptor, LOCK_EX) == 0 else {
        throw BenchmarkFailure("cannot lock \(lock.path)")
      }
      defer { close(descriptor) }
      let value = try decoder.decode(Int.self, from: Data(contentsOf: url))
      try writeAtomically(encoder.encode(value + 1), to: url)
    }
    try writeAtomically(encoder.encode(0), to: url)
    try await counter.transaction { $0 += 1 }
    try increment()
    let clock = ContinuousClock()
    for turn in 0..<400 {
      for side in [turn % 2, 1 - turn % 2] {
        let start = clock.now
        if side == 0 {
          try await counter.transaction { $0 += 1 }
        } else {
          try increment()
        }
        benchmark.measurement(
          counted(side == 0 ? "tether.us" : "byhand.us"), microseconds(clock.now - start))
      }
    }
  }

  let batch = Benchmark.Configuration(
    metrics: [.wallClock], timeUnits: .microseconds, warmupIterations: 2,
    maxDuration: .seconds(3), maxIterations: 50)

  Benchmark("transaction.memory.tether", configuration: batch) { benchmark in
    let counter = Shared(wrappedValue: 0, .inMemory("transaction-\(UUID())"))
    benchmark.startMeasurement()
    for _ in 0..<10_000 { try await counter.transaction { $0 += 1 } }
    benchmark.stopMeasurement()
  }

  Benchmark("transaction.memory.withlock", configuration: batch) { benchmark in
    let counter = Shared(wrappedValue: 0, .inMemory("withlock-\(UUID())"))
    benchmark.startMeasurement()
    for _ in 0..<10_000 { counter.withLock { $0 += 1 } }
    benchmark.stopMeasurement()
  }
}
