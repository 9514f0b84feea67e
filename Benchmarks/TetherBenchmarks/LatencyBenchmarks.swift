import Benchmark
import Dispatch
import Foundation
import Glibc
import Observation
import Synchronization
import Tether
@_spi(Benchmarking) import TetherFileStorage

/// An edit made outside Tether, until a holder of the key sees it through Observation, next to
/// the same edit's raw inotify event on a bare inotify descriptor watching the same folder, the
/// physical floor (benchmark 5). One benchmark per kind of edit: a finished file renamed into
/// place and a write closed after writing are delivered at once; a removal waits for the settle
/// delay, and a writer that keeps the file open for the maximum wait.
func latencyBenchmarks() {
  let metrics = [counted("seen.us"), counted("raw.us")]
  Benchmark("latency.rename", configuration: once(metrics)) { benchmark in
    try measureEdits(benchmark, "rename", rawEvent: IN_MOVED_TO) { url, edit in
      try renameIntoPlace("\(edit)", at: url)
      return edit
    }
  }
  Benchmark("latency.close", configuration: once(metrics)) { benchmark in
    // open(O_TRUNC), write, close.
    try measureEdits(benchmark, "close", rawEvent: IN_CLOSE_WRITE) { url, edit in
      try Data("\(edit)".utf8).write(to: url)
      return edit
    }
  }
  // Each prepared by a rename, which starts no burst: the edit's own events start the one it
  // waits for.
  Benchmark("latency.remove", configuration: once(metrics)) { benchmark in
    try measureEdits(benchmark, "remove", rawEvent: IN_DELETE, edits: 30) { url, edit in
      try FileManager.default.removeItem(at: url)
      return nil
    } prepare: { url, edit in
      try renameIntoPlace("\(edit)", at: url)
      return edit
    }
  }
  Benchmark("latency.open", configuration: once(metrics)) { benchmark in
    let writer = Mutex<Int32>(-1)
    // Two digits, written over the two there: the file never looks truncated.
    try measureEdits(benchmark, "open", rawEvent: IN_MODIFY, edits: 15) { url, edit in
      let fd = try systemCall("open") { open(url.path, O_WRONLY | O_CLOEXEC) }
      writer.withLock { $0 = fd }
      let text = "\(edit + 50)"
      try systemCall("pwrite") { text.withCString { pwrite(fd, $0, 2, 0) } }
      return edit + 50
    } prepare: { url, edit in
      try renameIntoPlace("\(edit + 10)", at: url)
      return edit + 10
    } seen: {
      writer.withLock { fd in
        close(fd)
        fd = -1
      }
    }
  }
}

/// Writes `text` beside `url` and renames it into place, as an editor saving atomically does.
private func renameIntoPlace(_ text: String, at url: URL) throws {
  let staged = url.deletingLastPathComponent().appending(path: ".value.json.new")
  try Data(text.utf8).write(to: staged)
  try systemCall("rename") { rename(staged.path, url.path) }
}

/// Makes `edits` edits of a file key's file, each with `edit`, after `prepare` (when given) and
/// the holder showing the value it returns; `edit` returns the value the holder is to see
/// (`nil`: the default). Records
/// when the holder sees it and when a bare inotify descriptor on the folder reads `rawEvent`
/// for the file, both from the edit's start; `seen` runs once the holder shows the edit.
private func measureEdits(
  _ benchmark: Benchmark, _ name: String, rawEvent: Int32, edits: Int = 60,
  _ edit: (URL, Int) throws -> Int?, prepare: ((URL, Int) throws -> Int)? = nil,
  seen whenSeen: () -> Void = {}
) throws {
  let folder = scratchFolder("latency-\(name)")
  let url = folder.appending(path: "value.json")
  try Data("0".utf8).write(to: url)
  let shared = Shared(wrappedValue: -1, .fileStorage(url))
  try waitUntil(shared, shows: 0)
  let raw = try RawInotify(folder: folder.path, name: "value.json", mask: rawEvent)
  defer { raw.stop() }
  for index in 1...edits {
    if let prepare { try waitUntil(shared, shows: try prepare(url, index)) }
    let seen = DispatchSemaphore(value: 0)
    withObservationTracking {
      _ = shared.wrappedValue
    } onChange: {
      seen.signal()
    }
    raw.reset()
    let start = ContinuousClock.now
    let expected = try edit(url, index) ?? -1
    guard seen.wait(timeout: .now() + 5) == .success else {
      throw BenchmarkFailure("\(name) edit \(index) was not seen within 5 s")
    }
    // Observation calls `onChange` as the value is about to change: the holder shows it a
    // moment later.
    let shown = ContinuousClock.now + .seconds(1)
    while shared.wrappedValue != expected {
      guard ContinuousClock.now < shown else {
        throw BenchmarkFailure("\(name) edit \(index): the holder shows \(shared.wrappedValue)")
      }
      sched_yield()
    }
    let latency = ContinuousClock.now - start
    benchmark.measurement(counted("seen.us"), microseconds(latency))
    if let event = raw.firstEvent {
      benchmark.measurement(counted("raw.us"), microseconds(event - start))
    }
    whenSeen()
  }
}

/// Waits until `shared` shows `value` (a file's first load, a prepared file's delivery), for up
/// to 5 s.
private func waitUntil(_ shared: Shared<Int>, shows value: Int) throws {
  let deadline = ContinuousClock.now + .seconds(5)
  while shared.wrappedValue != value {
    guard ContinuousClock.now < deadline else {
      throw BenchmarkFailure("the value \(value) was not seen within 5 s")
    }
    usleep(1_000)
  }
}

/// A bare inotify descriptor watching a folder, and a thread reading it: when it first read
/// an event of `mask` for the file `name` since ``reset()``.
private final class RawInotify: Sendable {
  private let fd: Int32
  private let first = Mutex<ContinuousClock.Instant?>(nil)
  private let stopping = Atomic(false)
  private let stopped = DispatchSemaphore(value: 0)

  init(folder: String, name: String, mask: Int32) throws {
    fd = try systemCall("inotify_init1") { inotify_init1(Int32(IN_CLOEXEC) | Int32(IN_NONBLOCK)) }
    let fd = fd
    _ = try systemCall("inotify_add_watch") {
      inotify_add_watch(
        fd, folder,
        UInt32(IN_MOVED_TO | IN_CLOSE_WRITE | IN_DELETE | IN_MODIFY | IN_CREATE | IN_MOVED_FROM))
    }
    let thread = Thread { [self] in read(name: name, mask: UInt32(bitPattern: mask)) }
    thread.name = "raw inotify"
    thread.start()
  }

  var firstEvent: ContinuousClock.Instant? { first.withLock { $0 } }

  func reset() { first.withLock { $0 = nil } }

  func stop() {
    stopping.store(true, ordering: .relaxed)
    stopped.wait()
    close(fd)
  }

  private func read(name: String, mask: UInt32) {
    defer { stopped.signal() }
    var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    // `struct inotify_event`: wd, mask, cookie, len (4 bytes each), then `len` bytes of name.
    let header = 16
    while !stopping.load(ordering: .relaxed) {
      var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      guard poll(&descriptor, 1, 50) > 0 else { continue }
      let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
      let now = ContinuousClock.now
      guard count > 0 else { continue }
      var offset = 0
      buffer.withUnsafeBytes { bytes in
        while offset + header <= count {
          let eventMask = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
          let length = Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
          let nameBytes = bytes[(offset + header)..<min(offset + header + length, count)]
          let eventName = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
          if eventMask & mask != 0 && eventName == name {
            first.withLock { $0 = $0 ?? now }
          }
          offset += header + length
        }
      }
    }
  }
}

/// Runs `body`, a system call; throws its `errno` when it returns -1.
@discardableResult
private func systemCall<Result: BinaryInteger>(
  _ name: String, _ body: () -> Result
) throws -> Result {
  let result = body()
  guard result != -1 else {
    throw BenchmarkFailure("\(name) failed: \(String(cString: strerror(errno)))")
  }
  return result
}
