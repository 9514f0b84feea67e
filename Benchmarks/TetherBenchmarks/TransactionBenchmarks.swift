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
  let configuration = Benchmark.Configuration(
    metrics: [.wallClock], timeUnits: .microseconds, warmupIterations: 5,
    maxDuration: .seconds(4), maxIterations: 400)

  Benchmark("transaction.file.tether", configuration: configuration) { benchmark in
    let url = scratchFolder("transaction-tether").appending(path: "counter.json")
    let counter = Shared(wrappedValue: 0, .fileStorage(url))
    try await counter.transaction { $0 += 1 }
    benchmark.startMeasurement()
    try await counter.transaction { $0 += 1 }
    benchmark.stopMeasurement()
  }

  Benchmark("transaction.file.byhand", configuration: configuration) { benchmark in
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
    try increment()
    benchmark.startMeasurement()
    try increment()
    benchmark.stopMeasurement()
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
