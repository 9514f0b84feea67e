import Benchmark
import Dispatch
import Foundation
import Tether
import TetherFileStorage
import TetherInMemory

/// Many threads at once on what they share: one key's `withLock`, and file keys made and
/// dropped (each takes the process's registry, store table, path cache and watcher). Each round
/// runs the same work on 8 threads and then on one: the ratio is what contention costs. A lock
/// that hands itself from waiter to waiter (Swift's `Mutex` on Linux) costs a context switch
/// per acquisition there, and the 8 threads take hundreds of times as long.
func contentionBenchmarks() {
  let threads = 8

  Benchmark(
    "contention.withLock", configuration: once([counted("threads.us"), counted("one.us")])
  ) { benchmark in
    let perThread = 25_000
    let counter = Shared(wrappedValue: 0, .inMemory("contention-\(getpid())"))
    for _ in 0..<5 {
      let together = onThreads(threads) { _ in
        for _ in 0..<perThread { counter.withLock { $0 += 1 } }
      }
      let alone = onThreads(1) { _ in
        for _ in 0..<(threads * perThread) { counter.withLock { $0 += 1 } }
      }
      benchmark.measurement(counted("threads.us"), microseconds(together))
      benchmark.measurement(counted("one.us"), microseconds(alone))
    }
    guard counter.wrappedValue == 5 * 2 * threads * perThread else {
      throw BenchmarkFailure("increments lost: \(counter.wrappedValue)")
    }
  }

  Benchmark(
    "contention.keys", configuration: once([counted("threads.us"), counted("one.us")])
  ) { benchmark in
    let perThread = 600
    let root = scratchFolder("contention")
    // A folder a thread, five files in each: a thread's keys come and go in its own folder,
    // which therefore stays watched (an idle folder keeps its watch for a second).
    let files = try (0..<threads).map { thread in
      let folder = root.appending(path: "t\(thread)")
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      return try (0..<5).map { file in
        let url = folder.appending(path: "k\(file).json")
        try Data("\(file)".utf8).write(to: url)
        return url
      }
    }
    // Files written just now are asked whether they are links; an app's are older.
    Thread.sleep(forTimeInterval: 3)
    @Sendable func makeAndDrop(_ url: URL) {
      let key = Shared(wrappedValue: -1, .fileStorage(url))
      blackHole(key.wrappedValue)
    }
    for _ in 0..<5 {
      let together = onThreads(threads) { thread in
        for round in 0..<perThread { makeAndDrop(files[thread][round % 5]) }
      }
      let alone = onThreads(1) { _ in
        for thread in 0..<threads {
          for round in 0..<perThread { makeAndDrop(files[thread][round % 5]) }
        }
      }
      benchmark.measurement(counted("threads.us"), microseconds(together))
      benchmark.measurement(counted("one.us"), microseconds(alone))
    }
  }
}

/// Runs `body(thread)` on `count` threads of their own, started together; returns how long
/// until the last one was done.
private func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) -> Duration {
  let ready = DispatchGroup()
  let done = DispatchGroup()
  let go = DispatchSemaphore(value: 0)
  for thread in 0..<count {
    ready.enter()
    done.enter()
    Thread {
      ready.leave()
      go.wait()
      body(thread)
      done.leave()
    }.start()
  }
  ready.wait()
  let start = ContinuousClock.now
  for _ in 0..<count { go.signal() }
  done.wait()
  return ContinuousClock.now - start
}
