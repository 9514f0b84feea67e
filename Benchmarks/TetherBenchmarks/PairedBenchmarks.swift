import Benchmark
import Foundation
import Observation
import Synchronization
import Tether
import TetherDefaults
import TetherFileStorage
import TetherInMemory

/// The rows whose targets are ratios of nanoseconds, each Tether's operation paired with its
/// baseline in one benchmark: reads and increments against the Observation floor, file-backed,
/// registered and defaults keys against the in-memory key, and a 100 KB value against the same
/// change by hand.
///
/// Measured apart, each benchmark runs in a process of its own, one after the other, and meets
/// a different moment of the machine: on a shared VM the same loop's median moves by 1.7×
/// from one process to the next, and a ratio of two such medians moved as much. Taking turns
/// in one process, load that comes and goes falls on both sides alike.
func pairedBenchmarks() {
  floorPairs()
  keyPairs()
  largeValuePair()
}

/// Turns in one paired sample: each side runs once per turn.
private let pairedTurns = 40

/// One benchmark timing `tether` and `baseline` in turns: each of ``pairedTurns`` turns runs
/// one side, then the other (which goes first alternates), and records its time per operation
/// in picoseconds, as custom metrics `tether.ps` and `baseline.ps`. Each side is handed the
/// number of operations to run and loops itself, so no call per operation is added to either.
private func pairedBenchmark(
  _ name: String, operations: Int, tether: @escaping (Int) -> Void,
  baseline: @escaping (Int) -> Void
) {
  Benchmark(
    name,
    configuration: Benchmark.Configuration(
      metrics: [counted("tether.ps"), counted("baseline.ps")],
      // In picoseconds as recorded: scaled to thousands, the export would keep two digits.
      units: [counted("tether.ps"): .count, counted("baseline.ps"): .count],
      warmupIterations: 1, maxDuration: .seconds(30), maxIterations: 5)
  ) { benchmark in
    let clock = ContinuousClock()
    for turn in 0..<pairedTurns {
      for tetherSide in turn.isMultiple(of: 2) ? [true, false] : [false, true] {
        let start = clock.now
        if tetherSide { tether(operations) } else { baseline(operations) }
        let picoseconds = (clock.now - start) / .nanoseconds(1) * 1000 / Double(operations)
        benchmark.measurement(
          counted(tetherSide ? "tether.ps" : "baseline.ps"), Int(picoseconds.rounded()))
      }
    }
  }
}

/// Operations per turn of the nanosecond-scale pairs: about 2 ms of the slower side.
private let turnOperations = 20_000

/// A read and a `withLock` increment of an in-memory `@Shared` value, read once first as an
/// app shows its values (Observation then sees every change), against a `Mutex` that
/// Observation sees: the least a value that takes part in Observation can cost.
private func floorPairs() {
  let mutex = Mutex(0)
  let registrar = ObservationRegistrar()
  let subject = PairedCounter()
  let valuePath = \PairedCounter.value
  let memory = Shared(wrappedValue: 0, .inMemory("benchmark.paired.floor"))
  blackHole(memory.wrappedValue)
  pairedBenchmark(
    "paired.read", operations: turnOperations,
    tether: { count in
      for _ in 0..<count { blackHole(memory.wrappedValue) }
    },
    baseline: { count in
      for _ in 0..<count {
        registrar.access(subject, keyPath: valuePath)
        blackHole(mutex.withLock { $0 })
      }
    })
  pairedBenchmark(
    "paired.increment", operations: turnOperations,
    tether: { count in
      for _ in 0..<count { memory.withLock { $0 += 1 } }
    },
    baseline: { count in
      for _ in 0..<count {
        registrar.withMutation(of: subject, keyPath: valuePath) { mutex.withLock { $0 += 1 } }
      }
    })
}

/// `withLock` increments of a file-backed key, a registered key (the README's main example:
/// declared by name, mapped to memory by the config) and a defaults key, each against an
/// in-memory key; all are read once first.
private func keyPairs() {
  do {
    try TetherSystem.bootstrap(
      configuration: .string("[keys]\nbenchmark.registered = memory"),
      strategies: [InMemoryStrategy.self])
  } catch {
    fatalError("cannot bootstrap the registered-key benchmark: \(error)")
  }
  let memory = Shared(wrappedValue: 0, .inMemory("benchmark.paired.keys"))
  let file = Shared(
    wrappedValue: 0, .fileStorage(scratchFolder("paired-file").appending(path: "n.json")))
  let registered = Shared(wrappedValue: 0, .registered("benchmark.registered"))
  let defaults = Shared(
    wrappedValue: 0,
    .defaults(
      "count",
      store: DefaultsStore(file: scratchFolder("paired-defaults").appending(path: "d.ini"))))
  for shared in [memory, file, registered, defaults] { blackHole(shared.wrappedValue) }
  let inMemory: (Int) -> Void = { count in
    for _ in 0..<count { memory.withLock { $0 += 1 } }
  }
  for (name, shared) in [
    ("paired.file", file), ("paired.registered", registered), ("paired.defaults", defaults),
  ] {
    pairedBenchmark(
      name, operations: turnOperations,
      tether: { count in
        for _ in 0..<count { shared.withLock { $0 += 1 } }
      }, baseline: inMemory)
  }
}

/// `withLock` changing one element of a 100 KB `[Int]`, against the same change by hand: copy,
/// change, compare with `==` and keep the copy when it differs. The last element changes, so
/// `==` reads the whole array in both.
private func largeValuePair() {
  let count = 12_800
  let large = Shared(wrappedValue: Array(0..<count), .inMemory("benchmark.large"))
  blackHole(large.wrappedValue)
  let held = Mutex(Array(0..<count))
  pairedBenchmark(
    "paired.large", operations: 200,
    tether: { operations in
      for _ in 0..<operations { large.withLock { $0[count - 1] &+= 1 } }
    },
    baseline: { operations in
      held.withLock { held in
        for _ in 0..<operations {
          var copy = held
          copy[count - 1] &+= 1
          if copy != held { held = copy }
        }
      }
    })
}

/// The subject Observation is told about in the floor baselines.
private final class PairedCounter: Observable, Sendable {
  var value: Int { 0 }
}
