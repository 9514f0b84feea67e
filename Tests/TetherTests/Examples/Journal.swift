import Foundation
import Synchronization
import Tether

/// One journal file: every save appends a line, the key's name as a JSON string, a tab, and
/// the value as JSON; a key's value is its last line.
///
/// Appends are `O_APPEND` writes of whole lines, so lines of several processes never
/// interleave. Lines other processes append are found by polling the file's size and handed to
/// the subscribers of their keys; the lines this journal appended itself are skipped, as a key
/// delivers only changes made elsewhere. The newest line wins: a line older than one this
/// journal appended for the same key is not the key's value (see ``isNewest(_:of:)``).
final class Journal: Sendable {
  let file: URL
  private let state: Mutex<State>

  private struct State {
    /// How far this journal has read the file: what follows is new.
    var seen: UInt64
    /// Where this journal's own appends past `seen` are: never delivered.
    var own: [Range<UInt64>] = []
    /// Where this journal's last line of each key ends, by the key's tag.
    var lastOwn: [Data: UInt64] = [:]
    var subscribers: [Int: Subscriber] = [:]
    var nextID = 0
    var poller: Task<Void, Never>?
  }

  /// A key's subscriber: the start of its key's lines, and where their values go.
  private final class Subscriber: Sendable {
    let tag: Data
    let deliver: @Sendable (Result<Line, any Error>) -> Void
    let cancelled = Atomic(false)

    init(tag: Data, deliver: @escaping @Sendable (Result<Line, any Error>) -> Void) {
      self.tag = tag
      self.deliver = deliver
    }
  }

  /// A line another process appended: its value, as JSON, and where it ends in the file.
  struct Line: Sendable {
    let json: Data
    let end: UInt64
  }

  /// How often the file's size is looked at while anything is subscribed.
  static let pollInterval = Duration.milliseconds(50)

  /// A journal of `file`; the lines already in it are loaded, not delivered.
  init(file: URL) throws {
    self.file = file
    state = Mutex(State(seen: try Self.size(of: file)))
  }

  /// The start of every line holding `name`'s values: `name` as a JSON string, and a tab (a JSON
  /// string holds no raw tab).
  static func tag(_ name: String) throws -> Data {
    try JSONEncoder().encode(name) + Data("\t".utf8)
  }

  /// The last value journaled with `tag`, as JSON.
  func last(_ tag: Data) throws -> Data? {
    guard FileManager.default.fileExists(atPath: file.path) else { return nil }
    return Self.values(of: tag, in: try Data(contentsOf: file)).last
  }

  /// Appends `json` as the newest value of the key whose lines start with `tag`.
  func append(_ tag: Data, json: Data) throws {
    let line = tag + json + Data("\n".utf8)
    try state.withLock { state in
      let descriptor = open(file.path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
      guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
      let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: false)
      // With O_APPEND, the offset after the write is the end of this line, wherever other
      // processes' lines put it.
      let end = Result {
        try handle.write(contentsOf: line)
        return try handle.offset()
      }
      try handle.close()
      let lineEnd = try end.get()
      state.lastOwn[tag] = lineEnd
      if state.subscribers.isEmpty {
        // Nobody to deliver to: loads read the whole file.
        state.seen = lineEnd
        state.own = []
      } else {
        state.own.append((lineEnd - UInt64(line.count))..<lineEnd)
      }
    }
  }

  /// Whether `line` is its key's newest: this journal appended no line of the key after it. A
  /// save of this process is appended before its `save` returns, so a line read before the save
  /// and delivered after it is found older here.
  func isNewest(_ line: Line, of tag: Data) -> Bool {
    state.withLock { ($0.lastOwn[tag] ?? 0) < line.end }
  }

  /// Calls `deliver` with each line of the key whose lines start with `tag` that another
  /// process appends, or with the error reading the file met, until the subscription ends.
  func subscribe(
    _ tag: Data, deliver: @escaping @Sendable (Result<Line, any Error>) -> Void
  ) -> SharedSubscription {
    let subscriber = Subscriber(tag: tag, deliver: deliver)
    let id = state.withLock { state in
      let id = state.nextID
      state.nextID += 1
      state.subscribers[id] = subscriber
      if state.poller == nil {
        state.poller = Task { [weak self] in await self?.pollUntilCancelled() }
      }
      return id
    }
    return SharedSubscription { [weak self] in
      subscriber.cancelled.store(true, ordering: .sequentiallyConsistent)
      self?.unsubscribe(id)
    }
  }

  private func unsubscribe(_ id: Int) {
    state.withLock { state in
      state.subscribers[id] = nil
      if state.subscribers.isEmpty {
        state.poller?.cancel()
        state.poller = nil
      }
    }
  }

  private func pollUntilCancelled() async {
    while !Task.isCancelled {
      do {
        try await Task.sleep(for: Self.pollInterval)
      } catch {
        return  // cancelled: the last subscriber is gone
      }
      poll()
    }
  }

  /// Reads what other processes appended and delivers it, outside the lock: a subscriber may
  /// read or change the shared value.
  private func poll() {
    let (subscribers, new) = state.withLock { state in
      (Array(state.subscribers.values), Result { try readNew(&state) })
    }
    for subscriber in subscribers
    where !subscriber.cancelled.load(ordering: .sequentiallyConsistent) {
      switch new {
      case .success(let lines):
        if let line = lines.last(where: { $0.text.starts(with: subscriber.tag) }) {
          subscriber.deliver(
            .success(Line(json: line.text.dropFirst(subscriber.tag.count), end: line.end)))
        }
      case .failure(let error):
        subscriber.deliver(.failure(error))
      }
    }
  }

  /// The whole lines appended since `state.seen`, without this journal's own (each of which is
  /// a whole line, starting where one of `state.own` does), and where each ends.
  private func readNew(_ state: inout State) throws -> [(text: Data, end: UInt64)] {
    let size = try Self.size(of: file)
    guard size != state.seen else { return [] }
    guard size > state.seen else {
      // Truncated or replaced: read on from its end, where no line of this journal is.
      state.seen = size
      state.own = []
      state.lastOwn = [:]
      return []
    }
    let read = try Self.read(file, from: state.seen, to: size)
    var lines: [(text: Data, end: UInt64)] = []
    var lineStart = read.startIndex
    // A line another process is still writing is read once it is whole.
    while let newline = read[lineStart...].firstIndex(of: UInt8(ascii: "\n")) {
      let start = state.seen + UInt64(lineStart - read.startIndex)
      if !state.own.contains(where: { $0.lowerBound == start }) {
        lines.append(
          (Data(read[lineStart..<newline]), end: start + UInt64(newline + 1 - lineStart)))
      }
      lineStart = newline + 1
    }
    state.seen += UInt64(lineStart - read.startIndex)
    state.own.removeAll { $0.upperBound <= state.seen }
    return lines
  }

  /// The values in the lines of `data` that start with `tag`, oldest first.
  private static func values(of tag: Data, in data: Data) -> [Data] {
    data.split(separator: UInt8(ascii: "\n"))
      .filter { $0.starts(with: tag) }
      .map { Data($0.dropFirst(tag.count)) }
  }

  private static func size(of file: URL) throws -> UInt64 {
    var info = stat()
    guard stat(file.path, &info) == 0 else {
      if errno == ENOENT { return 0 }
      throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
    }
    return UInt64(info.st_size)
  }

  private static func read(_ file: URL, from start: UInt64, to end: UInt64) throws -> Data {
    let handle = try FileHandle(forReadingFrom: file)
    let data = Result {
      try handle.seek(toOffset: start)
      return try handle.read(upToCount: Int(end - start)) ?? Data()
    }
    try handle.close()
    return try data.get()
  }
}
