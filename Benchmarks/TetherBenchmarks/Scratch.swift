import Benchmark
import Foundation

/// Operations per sample for the nanosecond-scale benchmarks: samples are reported in
/// microseconds per million operations, i.e. picoseconds per operation, so the report keeps
/// three decimals of nanoseconds.
let millionOps = 1_000_000

/// The configuration of a benchmark whose sample is a million operations.
var perMillion: Benchmark.Configuration {
  Benchmark.Configuration(
    metrics: [.wallClock], timeUnits: .microseconds, warmupIterations: 3,
    maxDuration: .seconds(3), maxIterations: 60)
}

/// The configuration of a benchmark that runs once and records its own custom samples.
func once(_ metrics: [BenchmarkMetric]) -> Benchmark.Configuration {
  Benchmark.Configuration(
    metrics: metrics, timeUnits: .microseconds, warmupIterations: 0, maxIterations: 1)
}

/// A custom metric whose samples are recorded as they are (no scaling).
func counted(_ name: String) -> BenchmarkMetric {
  .custom(name, polarity: .prefersSmaller, useScalingFactor: false)
}

/// A fresh folder for one benchmark's files, removed by the next run of the same benchmark.
///
/// Named by the benchmark alone: the runner starts a process per benchmark, one after another,
/// and a name per process left a folder (the 10,000-key one with 10,000 files) for every
/// process of every run.
func scratchFolder(_ name: String) -> URL {
  let folder = URL(filePath: NSTemporaryDirectory()).appending(path: "tether-bench-\(name)")
  do {
    if FileManager.default.fileExists(atPath: folder.path) {
      try FileManager.default.removeItem(at: folder)
    }
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  } catch {
    fatalError("cannot prepare \(folder.path): \(error)")
  }
  return folder
}

/// Microseconds in `duration`, rounded.
func microseconds(_ duration: Duration) -> Int {
  Int((duration / .microseconds(1)).rounded())
}

/// A benchmark that could not measure what it is about.
struct BenchmarkFailure: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}
