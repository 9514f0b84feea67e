import Benchmark
import Foundation
import Synchronization
import Tether
import TetherInMemory

/// Reads and increments of a shared value, each in a process of its own, next to a bare `Mutex`
/// (rows without a target; the targets against the Observation floor are paired, in
/// `PairedBenchmarks.swift`).
func coreBenchmarks() {
  let mutex = Mutex(0)
  Benchmark("read.mutex", configuration: perMillion) { _ in
    for _ in 0..<millionOps { blackHole(mutex.withLock { $0 }) }
  }
  Benchmark("increment.mutex", configuration: perMillion) { _ in
    for _ in 0..<millionOps { mutex.withLock { $0 += 1 } }
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
}
