import Foundation
import Tether
import TetherFiles
import TetherWatcher

/// Transactions: the file read, changed and written back under its lock.
extension FileStore {
  /// How many times a transaction reads and runs its change again when the file was replaced
  /// by something that does not take the lock (an editor) before its write.
  private static let transactionAttempts = 20

  /// A key's transaction (see `TransactionalKey`): this process's changes of the file are
  /// written first, then under the file's lock (`.NAME.lock`) the file is read, changed and
  /// written back, replacing only what was read.
  func transaction<Value>(
    coder: FileCoder<Value>, context: LoadContext<Value>, description: String,
    update: (inout Value) throws -> Void, stored: (Value) -> Void
  ) throws {
    // In order, before the transaction's write: none of them can land after it.
    try existingWriter?.drain()
    let lock = try Self.lockFile(beside: path)
    // Under the view lock, which deliveries take too: none read before this write is
    // delivered after it, and the holders are told of it before any later change.
    state.view.lock()
    defer { state.view.unlock() }
    let watch = state.withLock { $0.watch }
    var written: Value?
    for _ in 0..<Self.transactionAttempts {
      let read = FileSnapshot.read(path)
      var value: Value
      switch read.content {
      case .data(let data) where !data.isEmpty:
        // Undecodable bytes: the error is the caller's, and nothing replaces them.
        value = try coder.decode(data)
      case .missing, .data:
        guard let initialValue = context.initialValue else {
          throw TetherError.noValue(key: description)
        }
        value = initialValue
      case .unreadable(let error):
        throw error
      }
      try update(&value)
      let data = try coder.encode(value)
      do {
        try watch.replacing(with: data) { _ in
          try AtomicFile.write(
            data, to: path, durable: settings.durability == .durable, expected: read)
        }
      } catch is AtomicFile.Conflict {
        continue
      }
      let landed = watch?.ownWritesLanded
      state.withLock { state in
        state.corrupt = nil
        if let landed { state.ownWritesLanded = landed }
        state.lastWrite = landed.map { LastWrite(data: data, landed: $0) }
      }
      written = value
      break
    }
    _ = consume lock
    guard let written else {
      throw TetherError.conflict(key: description, location: path)
    }
    stored(written)
  }

  /// Takes the cross-process lock of the file at `path` (see `LockFile`), its refusal said as
  /// a `TetherError`; the lock is let go when the value goes.
  static func lockFile(beside path: String) throws -> LockFile {
    do {
      return try LockFile(beside: path)
    } catch let refused as LockFile.Refused {
      throw TetherError.unusableFile(refused.path, reason: refused.reason)
    }
  }
}
