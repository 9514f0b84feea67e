import Benchmark
import Dispatch
import Foundation
import Observation
import Synchronization
import Tether
@_spi(Benchmarking) import TetherFileStorage

/// An edit made outside Tether (a plain write of the file), until a holder of the key sees it
/// through Observation, less the settle delay; and the raw inotify event for the same write,
/// the physical floor (benchmark 5).
func latencyBenchmarks() {
  Benchmark(
    "latency.edit",
    configuration: once([counted("seen.us"), counted("seen-minus-settle.us"), counted("raw.us")])
  ) { benchmark in
    let url = scratchFolder("latency").appending(path: "value.json")
    try Data("0".utf8).write(to: url)
    let shared = Shared(wrappedValue: 0, .fileStorage(url))
    let settle = FileWatcherProbe.settleDelay
    let rawEvent = Mutex<ContinuousClock.Instant?>(nil)
    FileWatcherProbe.setEventTap { path in
      guard path == url.path else { return }
      rawEvent.withLock { if $0 == nil { $0 = .now } }
    }
    defer { FileWatcherProbe.setEventTap(nil) }

    for edit in 1...60 {
      let seen = DispatchSemaphore(value: 0)
      withObservationTracking {
        _ = shared.wrappedValue
      } onChange: {
        seen.signal()
      }
      rawEvent.withLock { $0 = nil }
      let start = ContinuousClock.now
      try Data("\(edit)".utf8).write(to: url)
      guard seen.wait(timeout: .now() + 5) == .success else {
        throw BenchmarkFailure("edit \(edit) was not seen within 5 s")
      }
      let latency = ContinuousClock.now - start
      benchmark.measurement(counted("seen.us"), microseconds(latency))
      benchmark.measurement(counted("seen-minus-settle.us"), microseconds(latency - settle))
      if let raw = rawEvent.withLock({ $0 }) {
        benchmark.measurement(counted("raw.us"), microseconds(raw - start))
      }
    }
  }
}
