import Dispatch
import Foundation
import Logging
import Synchronization
import Tether
import TetherWatcher

/// One file's writes and watch, shared by every key of that path and value type in a scope.
///
/// Throttle: the first change is written at once (off the caller's thread); later changes in the
/// throttle window coalesce into one trailing write of the latest value, encoded when it is
/// written. A write that fails keeps its change pending for the next change or flush. An
/// external edit wins over a pending local change, which is dropped and logged.
final class FileStore<Value: Sendable>: PendingWrites, Sendable {
  typealias Encode = @Sendable (Value) throws -> Data

  let path: String
  let settings: FileStorageSettings

  private struct Pending {
    var value: Value
    var encode: Encode
    var continuations: [SaveContinuation]
  }

  private struct State {
    var pending: Pending?
    var windowStart: UInt64?
    var timer: UInt64?
    var nextTimer: UInt64 = 0
    /// Writes enqueued or running on `queue`.
    var queued = 0
    /// Bytes that failed to decode: kept as a backup before anything replaces them.
    var corrupt: Data?
    var subscribers: [UInt64: Subscriber] = [:]
    var nextSubscriber: UInt64 = 0
    var watch: FileWatch?
    var writes = 0
  }

  private struct Subscriber {
    let deliver: @Sendable (FileContent) -> Void
    let saved: @Sendable () -> Void
  }

  private let state = Mutex(State())
  private let queue: DispatchQueue

  init(path: String, settings: FileStorageSettings, scope: TetherScope) {
    self.path = path
    self.settings = settings
    self.queue = DispatchQueue(label: "tether.file \(path)", target: .global())
    AtomicFile.removeStaleTemporaries(of: path)
    PendingWritesRegistry.register(self, scope: scope)
  }

  deinit {
    PendingWritesRegistry.unregister(ObjectIdentifier(self))
  }

  /// How many times the file was written, for tests and benchmarks.
  var writes: Int { state.withLock { $0.writes } }

  static var logger: Logger { Logger(label: "tether.file") }

  // MARK: Loading

  /// The file's value: `nil` when there is none (missing or empty); the decoding error when its
  /// bytes are not a value (they are then backed up before a write replaces them).
  func load(decode: (Data) throws -> Value) throws -> Value? {
    switch FileContent.read(path) {
    case .missing: return nil
    case .unreadable(let error): throw error
    case .data(let data): return try decoded(data, decode)
    }
  }

  private func decoded(_ data: Data, _ decode: (Data) throws -> Value) throws -> Value? {
    guard !data.isEmpty else { return nil }
    do {
      let value = try decode(data)
      state.withLock { $0.corrupt = nil }
      return value
    } catch {
      state.withLock { $0.corrupt = data }
      throw error
    }
  }

  // MARK: Saving

  func save(
    _ value: Value, context: SaveContext, encode: @escaping Encode,
    continuation: SaveContinuation
  ) {
    let now = DispatchTime.now().uptimeNanoseconds
    let write = state.withLock { state -> Pending? in
      // A newer value supersedes a pending one; their callers hear the outcome of this write.
      let earlier = state.pending?.continuations ?? []
      let change = Pending(value: value, encode: encode, continuations: earlier + [continuation])
      state.pending = nil
      if context == .userInitiated || windowIsClosed(state, now: now) && state.queued == 0 {
        state.timer = nil
        if context == .didSet { state.windowStart = now }
        state.queued += 1
        return change
      }
      state.pending = change
      startTimerIfNeeded(&state, now: now)
      return nil
    }
    if let write { queue.async { self.write(write) } }
  }

  private func windowIsClosed(_ state: State, now: UInt64) -> Bool {
    guard let start = state.windowStart else { return true }
    return now >= start + settings.throttle.nanoseconds
  }

  /// Schedules the trailing write of the pending change at the end of the window.
  private func startTimerIfNeeded(_ state: inout State, now: UInt64) {
    guard state.pending != nil, state.timer == nil, state.queued == 0 else { return }
    let end = (state.windowStart ?? now) + settings.throttle.nanoseconds
    let id = state.nextTimer
    state.nextTimer += 1
    state.timer = id
    queue.asyncAfter(deadline: .now() + .nanoseconds(Int(end > now ? end - now : 0))) {
      let due = self.state.withLock { state -> Pending? in
        guard state.timer == id, let pending = state.pending else { return nil }
        state.timer = nil
        // The trailing write closes the window: the next change is written at once.
        state.windowStart = nil
        state.pending = nil
        state.queued += 1
        return pending
      }
      if let due { self.write(due) }
    }
  }

  /// Writes `change`, on the store's queue (encoding it here, not on the mutating thread).
  private func write(_ change: Pending) {
    let (corrupt, watch) = state.withLock { ($0.corrupt, $0.watch) }
    let result = Result { () throws -> Void in
      try replace(with: try change.encode(change.value), corrupt: corrupt, watch: watch)
    }
    let now = DispatchTime.now().uptimeNanoseconds
    let (next, saved) = state.withLock { state -> (Pending?, [Subscriber]) in
      state.queued -= 1
      let saved = result.isSuccess ? Array(state.subscribers.values) : []
      switch result {
      case .success:
        state.writes += 1
        state.corrupt = nil
      case .failure(is AtomicFile.Conflict), .failure(is EncodingError):
        break  // Superseded by the file's content, or a value that can never be written.
      case .failure:
        // Nothing is lost: the change stays pending for the next change or flush.
        if state.pending == nil {
          state.pending = Pending(value: change.value, encode: change.encode, continuations: [])
          return (nil, saved)
        }
      }
      // Changes made during the write are written after it, never marked clean by it.
      guard state.pending != nil, state.queued == 0, state.timer == nil else { return (nil, saved) }
      if windowIsClosed(state, now: now) {
        state.windowStart = now
        defer { state.pending = nil }
        state.queued += 1
        return (state.pending, saved)
      }
      startTimerIfNeeded(&state, now: now)
      return (nil, saved)
    }
    // A change kept after a failure has no caller left to tell: tell the holders directly.
    if change.continuations.isEmpty { for subscriber in saved { subscriber.saved() } }
    if case .failure(is AtomicFile.Conflict) = result {
      Self.logger.warning(
        "\(path) changed on disk before a pending local change was written; the file's content wins and the local change is dropped"
      )
    }
    for continuation in change.continuations {
      // A change dropped for an external edit is not a failure to save.
      if case .failure(let error) = result, !(error is AtomicFile.Conflict) {
        continuation.resume(throwing: error)
      } else {
        continuation.resume()
      }
    }
    if let next { queue.async { self.write(next) } }
  }

  private func replace(with data: Data, corrupt: Data?, watch: FileWatch?) throws {
    if let corrupt, FileContent.read(path) == .data(corrupt) {
      let backup = try AtomicFile.keepCorrupt(path)
      Self.logger.warning("kept the unreadable \(path) as \(backup) before replacing it")
    }
    watch?.willWrite(data)
    do {
      try AtomicFile.write(
        data, to: path, durable: settings.durability == .durable, expected: watch?.knownContent)
    } catch {
      watch?.writeFailed(data)
      throw error
    }
    watch?.didWrite(data)
  }

  /// Writes any pending change now, on the calling thread.
  func flushNow() {
    queue.sync {
      let pending = state.withLock { state -> Pending? in
        guard let pending = state.pending else { return nil }
        state.pending = nil
        state.timer = nil
        state.queued += 1
        return pending
      }
      if let pending { write(pending) }
    }
  }

  // MARK: Watching

  /// Delivers the file's changes made outside this store to `deliver` until cancelled.
  func subscribe(
    saved: @escaping @Sendable () -> Void,
    _ deliver: @escaping @Sendable (FileContent) -> Void
  ) -> SharedSubscription {
    let (id, needsWatch) = state.withLock { state in
      let id = state.nextSubscriber
      state.nextSubscriber += 1
      state.subscribers[id] = Subscriber(deliver: deliver, saved: saved)
      return (id, state.watch == nil)
    }
    if needsWatch {
      let watch = FileWatcher.shared.watch(path) { [weak self] content in
        self?.receive(content)
      }
      state.withLock { state in
        if state.watch == nil && !state.subscribers.isEmpty { state.watch = watch }
      }
    }
    return SharedSubscription { [weak self] in
      guard let self else { return }
      let watch = self.state.withLock { state -> FileWatch? in
        state.subscribers[id] = nil
        guard state.subscribers.isEmpty else { return nil }
        defer { state.watch = nil }
        return state.watch
      }
      watch?.cancel()
    }
  }

  /// An external change: it wins over a local change still waiting for its write.
  private func receive(_ content: FileContent) {
    let (dropped, subscribers) = state.withLock { state in
      var dropped: Pending?
      if let pending = state.pending {
        dropped = pending
        state.pending = nil
        state.timer = nil
      }
      if case .data(let data) = content, data != state.corrupt { state.corrupt = nil }
      return (dropped, Array(state.subscribers.values))
    }
    if let dropped {
      Self.logger.warning(
        "\(path) was changed on disk while a local change waited to be written; the file's content wins and the local change is dropped"
      )
      for continuation in dropped.continuations { continuation.resume() }
    }
    for subscriber in subscribers { subscriber.deliver(content) }
  }

  /// Notes bytes a subscriber could not decode.
  func markCorrupt(_ data: Data) {
    state.withLock { $0.corrupt = data }
  }
}

extension Result {
  fileprivate var isSuccess: Bool {
    if case .success = self { return true }
    return false
  }
}

extension Duration {
  var nanoseconds: UInt64 {
    let (seconds, attoseconds) = components
    return UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
  }
}
