import Benchmark
import Foundation
import Observation
import Synchronization
import Tether
import TetherFileStorage
import TetherInMemory

/// Reads and increments of a shared value, against a bare `Mutex` measured in the same run
/// (benchmarks 1–3), and against a `Mutex` that Observation sees: the least that a value which
/// takes part in Observation can cost.
func coreBenchmarks() {
  let mutex = Mutex(0)
  Benchmark("read.mutex", configuration: perMillion) { _ in
    for _ in 0..<millionOps { blackHole(mutex.withLock { $0 }) }
  }
  Benchmark("increment.mutex", configuration: perMillion) { _ in
    for _ in 0..<millionOps { mutex.withLock { $0 += 1 } }
  }

  let registrar = ObservationRegistrar()
  let subject = ObservedCounter()
  let valuePath = \ObservedCounter.value
  Benchmark("read.observed-mutex", configuration: perMillion) { _ in
    for _ in 0..<millionOps {
      registrar.access(subject, keyPath: valuePath)
      blackHole(mutex.withLock { $0 })
    }
  }
  Benchmark("increment.observed-mutex", configuration: perMillion) { _ in
    for _ in 0..<millionOps {
      registrar.withMutation(of: subject, keyPath: valuePath) { mutex.withLock { $0 += 1 } }
    }
  }

  // Each value is read once first, as an app shows its values: Observation then sees every
  // change (a value nothing has read yet skips it: the `unread` row).
  let memory = Shared(wrappedValue: 0, .inMemory("benchmark.count"))
  blackHole(memory.wrappedValue)
  Benchmark("read.shared", configuration: perMillion) { _ in
    for _ in 0..<millionOps { blackHole(memory.wrappedValue) }
  }
  Benchmark("increment.shared", configuration: perMillion) { _ in
    for _ in 0..<millionOps { memory.withLock { $0 += 1 } }
  }

  let unread = Shared(wrappedValue: 0, .inMemory("benchmark.unread"))
  Benchmark("increment.unread", configuration: perMillion) { _ in
    for _ in 0..<millionOps { unread.withLock { $0 += 1 } }
  }

  // The README's main example: a key declared by name, which the config maps to a strategy.
  do {
    try TetherSystem.bootstrap(
      configuration: .string("[keys]\nbenchmark.registered = memory"),
      strategies: [InMemoryStrategy.self])
  } catch {
    fatalError("cannot bootstrap the registered-key benchmark: \(error)")
  }
  let registered = Shared(wrappedValue: 0, .registered("benchmark.registered"))
  blackHole(registered.wrappedValue)
  Benchmark("increment.registered", configuration: perMillion) { _ in
    for _ in 0..<millionOps { registered.withLock { $0 += 1 } }
  }

  let file = Shared(wrappedValue: 0, .fileStorage(scratchFolder("core").appending(path: "n.json")))
  blackHole(file.wrappedValue)
  Benchmark("increment.file", configuration: perMillion) { _ in
    for _ in 0..<millionOps { file.withLock { $0 += 1 } }
  }
}

/// The subject Observation is told about in the floor baselines.
private final class ObservedCounter: Observable, Sendable {
  var value: Int { 0 }
}
