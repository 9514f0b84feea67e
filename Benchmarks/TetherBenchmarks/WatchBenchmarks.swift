import Benchmark
import Foundation
import Tether
@_spi(Benchmarking) import TetherFileStorage

/// 10,000 file keys in 100 folders: inotify watches, the time to start every holder (each
/// reads and decodes its file and starts watching it), resident memory; the baseline reads and
/// decodes the same files by hand (benchmark 6). The files are written three seconds before.
func watchBenchmarks() {
  let folders = 100
  let filesPerFolder = 100
  func prepare() throws -> [URL] {
    let root = scratchFolder("watches")
    var urls: [URL] = []
    for folder in 0..<folders {
      let directory = root.appending(path: "f\(folder)")
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
      for file in 0..<filesPerFolder {
        let url = directory.appending(path: "k\(file).json")
        try Data("\(file)".utf8).write(to: url)
        urls.append(url)
      }
    }
    // An app's files are there before it starts: folders changed in the last two seconds are
    // not trusted to be listed (each name is asked whether it is a link instead), which only a
    // file written just now would meet.
    Thread.sleep(forTimeInterval: 3)
    return urls
  }

  Benchmark(
    "watches.tether",
    configuration: once([
      counted("start.us"), counted("inotify-watches"), counted("ancestor-watches"),
      counted("rss-per-key.bytes"),
    ])
  ) { benchmark in
    let urls = try prepare()
    /// Watches of folders, and the control file's: not the ancestors'.
    func ownWatches() -> Int {
      let counts = FileWatcherProbe.watchCounts
      return counts.all - counts.ancestors
    }
    // The other benchmarks' keys, made as they are registered, watch their folders already.
    let watchesAtFirst = ownWatches()
    for round in 0..<5 {
      // Each round starts cold, as an app does: a folder keeps its watch for a second after its
      // last key goes, so the previous round's are waited out (the control file's stays, and
      // so may the ancestors', until the watcher's next full look).
      let deadline = ContinuousClock.now + .seconds(30)
      while round > 0 && ownWatches() > max(watchesAtFirst, 1) {
        guard ContinuousClock.now < deadline else {
          throw BenchmarkFailure("the previous round's folders are still watched")
        }
        Thread.sleep(forTimeInterval: 0.01)
      }
      let watchesBefore = ownWatches()
      let residentBefore = residentBytes()
      let start = ContinuousClock.now
      let holders = urls.map { Shared(wrappedValue: -1, .fileStorage($0)) }
      let elapsed = ContinuousClock.now - start
      // The control file's watch exists from the first watch on: counted once.
      let control = watchesBefore == 0 ? 0 : 1
      benchmark.measurement(counted("start.us"), microseconds(elapsed))
      // Memory only the first round: later rounds reuse what the first one freed.
      if round == 0 {
        // The folders' ancestors (up to `/`) are watched too, for their moves: reported apart,
        // so that the per-folder count stays visible; the watcher's thread adds them.
        FileWatcherProbe.waitForWatcher()
        benchmark.measurement(counted("inotify-watches"), ownWatches() - watchesBefore + control)
        benchmark.measurement(counted("ancestor-watches"), FileWatcherProbe.watchCounts.ancestors)
        benchmark.measurement(
          counted("rss-per-key.bytes"), (residentBytes() - residentBefore) / urls.count)
      }
      guard holders.allSatisfy({ $0.wrappedValue >= 0 }) else {
        throw BenchmarkFailure("a holder did not load its file")
      }
    }
  }

  Benchmark("watches.byhand", configuration: once([counted("start.us")])) { benchmark in
    let urls = try prepare()
    for _ in 0..<5 {
      let start = ContinuousClock.now
      let decoder = JSONDecoder()
      let values = try urls.map { try decoder.decode(Int.self, from: Data(contentsOf: $0)) }
      benchmark.measurement(counted("start.us"), microseconds(ContinuousClock.now - start))
      blackHole(values)
    }
  }

  fileKeyCallsBenchmark(prepare: prepare)
}

/// The floor under a file key's start: the system calls each key makes (an `open` — a key's is
/// `openat2`, which also shows its path has no link on the way, at the same cost — then `read`
/// until a short read, `close`) and the decoding, by hand, with nothing else — in watched
/// folders, as a key's are once the first key of its folder has started (the kernel then tells
/// inotify of every open, read and close).
func fileKeyCallsBenchmark(prepare: @escaping () throws -> [URL]) {
  Benchmark("watches.calls", configuration: once([counted("start.us")])) { benchmark in
    let urls = try prepare()
    let files = urls.map { ($0.path, $0.deletingLastPathComponent().path) }
    var folders = Set<String>()
    let watchers = files.enumerated().filter { folders.insert($0.element.1).inserted }.map {
      Shared(wrappedValue: -1, .fileStorage(urls[$0.offset]))
    }
    defer { withExtendedLifetime(watchers) {} }
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 1)
    defer { buffer.deallocate() }
    for _ in 0..<5 {
      let start = ContinuousClock.now
      let decoder = JSONDecoder()
      let values = try files.map { path, _ in
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw BenchmarkFailure("\(path): \(errno)") }
        defer { close(fd) }
        var data = Data()
        while case let count = read(fd, buffer.baseAddress, buffer.count), count > 0 {
          data.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[..<count]))
          if count < buffer.count { break }
        }
        return try decoder.decode(Int.self, from: data)
      }
      benchmark.measurement(counted("start.us"), microseconds(ContinuousClock.now - start))
      blackHole(values)
    }
  }
}

/// This process's resident memory, from /proc/self/statm.
func residentBytes() -> Int {
  guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else {
    return 0
  }
  let pages = statm.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
  return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}
