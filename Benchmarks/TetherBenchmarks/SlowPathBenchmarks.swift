import Benchmark
import Foundation
import Observation
import Synchronization
import Tether

/// Fan-out to many `changes` iterators and Observation trackers, against the same delivery by
/// hand (the other slow paths a user hits, a large value and a defaults key, are paired, in
/// `PairedBenchmarks.swift`).
func slowPathBenchmarks() {
  fanOutBenchmarks()
}

/// How many listeners, and how many changes each sample makes.
private let fanOut = 100
private let fanOutChanges = 1_000

/// The configuration of a fan-out benchmark: each sample is one round of changes.
private var fanOutConfiguration: Benchmark.Configuration {
  Benchmark.Configuration(
    metrics: [.wallClock], timeUnits: .microseconds, warmupIterations: 3,
    maxDuration: .seconds(3), maxIterations: 100)
}

/// `fanOut` listeners of one value, then `fanOutChanges` changes of it until every listener has
/// seen the last: `changes` iterators against `AsyncStream`s fed by hand, and Observation
/// trackers of a `Shared` against trackers of a plain `@Observable` class. Only the changes and
/// their delivery are measured, not the listeners' setup.
private func fanOutBenchmarks() {
  Benchmark("fanout.changes.tether", configuration: fanOutConfiguration) { benchmark in
    let shared = Shared(value: 0)
    let started = TrackedChanges()
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<fanOut {
        group.addTask {
          var first = true
          for await value in shared.changes {
            if first { started.count.add(1, ordering: .releasing) }
            first = false
            if value == fanOutChanges { return }
          }
        }
      }
      while started.count.load(ordering: .acquiring) < fanOut { await Task.yield() }
      benchmark.startMeasurement()
      for _ in 0..<fanOutChanges { shared.withLock { $0 += 1 } }
      await group.waitForAll()
      benchmark.stopMeasurement()
    }
  }

  Benchmark("fanout.changes.streams", configuration: fanOutConfiguration) { benchmark in
    let streams = (0..<fanOut).map { _ in
      AsyncStream<Int>.makeStream(bufferingPolicy: .bufferingNewest(1))
    }
    let started = TrackedChanges()
    await withTaskGroup(of: Void.self) { group in
      for (stream, _) in streams {
        group.addTask {
          var first = true
          for await value in stream {
            if first { started.count.add(1, ordering: .releasing) }
            first = false
            if value == fanOutChanges { return }
          }
        }
      }
      for (_, continuation) in streams { continuation.yield(0) }
      while started.count.load(ordering: .acquiring) < fanOut { await Task.yield() }
      benchmark.startMeasurement()
      let value = Mutex(0)
      for _ in 0..<fanOutChanges {
        let current = value.withLock { value in
          value += 1
          return value
        }
        for (_, continuation) in streams { continuation.yield(current) }
      }
      await group.waitForAll()
      benchmark.stopMeasurement()
    }
  }

  Benchmark("fanout.observation.tether", configuration: fanOutConfiguration) { benchmark in
    let shared = Shared(value: 0)
    let told = TrackedChanges()
    for _ in 0..<fanOut { keepTracking({ blackHole(shared.wrappedValue) }, told: told) }
    benchmark.startMeasurement()
    for _ in 0..<fanOutChanges { shared.withLock { $0 += 1 } }
    benchmark.stopMeasurement()
    try told.expect(fanOut * fanOutChanges)
  }

  Benchmark("fanout.observation.observable", configuration: fanOutConfiguration) { benchmark in
    // Read and changed on this thread only, as the `Shared` above is here.
    nonisolated(unsafe) let model = PlainModel()
    let told = TrackedChanges()
    for _ in 0..<fanOut { keepTracking({ blackHole(model.value) }, told: told) }
    benchmark.startMeasurement()
    for _ in 0..<fanOutChanges { model.value += 1 }
    benchmark.stopMeasurement()
    try told.expect(fanOut * fanOutChanges)
  }
}

/// Tracks `read` for good: each change registers it again, as a view that renders again does.
private func keepTracking(_ read: @escaping @Sendable () -> Void, told: TrackedChanges) {
  withObservationTracking(read) {
    told.count.add(1, ordering: .relaxed)
    keepTracking(read, told: told)
  }
}

/// How many `onChange` calls the trackers had (or how many listeners have started).
private final class TrackedChanges: Sendable {
  let count = Atomic<Int>(0)

  /// Throws unless every tracker was told of every change.
  func expect(_ expected: Int) throws {
    let told = count.load(ordering: .relaxed)
    guard told == expected else {
      throw BenchmarkFailure("trackers were told \(told) changes, not \(expected)")
    }
  }
}

/// A plain `@Observable` class: the floor of Observation's fan-out.
@Observable
private final class PlainModel {
  var value = 0
}
