import Benchmark
import Foundation
import Synchronization
import Tether
import TetherFileStorage
import TetherInMemory

/// Reads and increments of a shared value, against a bare `Mutex` measured in the same run.
func coreBenchmarks() {
  let configuration = Benchmark.Configuration(
    metrics: [.wallClock, .throughput], scalingFactor: .mega, maxDuration: .seconds(3))

  let mutex = Mutex(0)
  Benchmark("read/mutex (baseline)", configuration: configuration) { benchmark in
    for _ in benchmark.scaledIterations { blackHole(mutex.withLock { $0 }) }
  }
  Benchmark("increment/mutex (baseline)", configuration: configuration) { benchmark in
    for _ in benchmark.scaledIterations { mutex.withLock { $0 += 1 } }
  }

  let memory = Shared(wrappedValue: 0, .inMemory("benchmark.count"))
  Benchmark("read/shared in-memory", configuration: configuration) { benchmark in
    for _ in benchmark.scaledIterations { blackHole(memory.wrappedValue) }
  }
  Benchmark("increment/shared in-memory", configuration: configuration) { benchmark in
    for _ in benchmark.scaledIterations { memory.withLock { $0 += 1 } }
  }

  let folder = scratchFolder("core")
  let file = Shared(wrappedValue: 0, .fileStorage(folder.appending(path: "count.json")))
  Benchmark("increment/shared file", configuration: configuration) { benchmark in
    for _ in benchmark.scaledIterations { file.withLock { $0 += 1 } }
  }
}

/// A fresh folder for one benchmark's files.
func scratchFolder(_ name: String) -> URL {
  let folder = URL(filePath: NSTemporaryDirectory())
    .appending(path: "tether-bench-\(name)-\(ProcessInfo.processInfo.processIdentifier)")
  try? FileManager.default.removeItem(at: folder)
  try! FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  return folder
}
