import Foundation
import Tether
import TetherFiles
import TetherWatcher

/// Transactions: one key's line read, changed and written back under the file's lock.
extension DefaultsFile {
  /// How many times a transaction reads and runs its change again when the file was replaced
  /// by something that does not take the lock (an editor) before its write.
  private static let transactionAttempts = 20

  /// A key's transaction (see `TransactionalKey`): this process's changes of the file are
  /// written first, then under the file's lock the file is read, `name`'s value is changed,
  /// and only its line is written back. `read` is the key's value for what the two files hold
  /// (`nil`: no line, the default), throwing for a line that does not parse; `literal` is the
  /// line's new value.
  func transaction<Value>(
    _ name: String, read: (Lookup) throws -> Value?, literal: (Value) throws -> INIValue,
    context: LoadContext<Value>, update: (inout Value) throws -> Void,
    stored: (Value) -> Void
  ) throws {
    // In order, before the transaction's write: none of them can land after it.
    try writer.drain()
    let lock = try Self.lockFile(for: path)
    // Under the view lock, which deliveries and loads take too: none read before this write is
    // applied after it, and the holders are told of it before any later change.
    view.lock()
    defer { view.unlock() }
    let (watch, registration) = state.withLock { state in
      (state.watches.first, Self.lookup(name, in: state).registration)
    }
    var outcome: (value: Value, news: News)?
    for _ in 0..<Self.transactionAttempts {
      let found = FileSnapshot.read(path)
      let current = found.content
      let onDisk = try Self.parse(current, origin: path).get()
      let lookup = Lookup(user: Self.found(name, in: onDisk), registration: registration)
      guard var value = try read(lookup) ?? context.initialValue else {
        throw TetherError.noValue(key: name)
      }
      try update(&value)
      var document = onDisk.document
      let (section, key) = DefaultsName.split(name)
      document.apply([(section, key, try literal(value))])
      let data = Data(document.render().utf8)
      if current != .data(data) {
        do {
          try watch.replacing(with: data) { _ in
            try AtomicFile.write(data, to: path, durable: false, expected: found)
          }
        } catch is AtomicFile.Conflict {
          continue
        }
      }
      let identity = FileIdentity.of(path)
      let landed = watch?.ownWritesLanded
      // As after a write: what the file holds now is this process's view of it, and the
      // holders of other keys whose lines changed on disk are told (the watcher takes this
      // write as this process's own and delivers nothing).
      let news = state.withLock { state in
        state.user = .success(Parsed(document))
        state.userIdentity = identity
        if let landed { state.ownWritesLanded = landed }
        state.given[name]?.serial = nil
        return Self.news(in: &state, except: [name])
      }
      outcome = (value, news)
      break
    }
    _ = consume lock  // Let go before telling holders: one may write the file.
    guard let outcome else { throw TetherError.conflict(key: name, location: path) }
    stored(outcome.value)
    Self.deliver(outcome.news, state: state, path: path)
  }
}
