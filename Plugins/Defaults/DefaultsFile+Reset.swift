import Foundation
import Tether
import TetherFiles
import TetherWatcher

/// Resets: one key's line removed under the file's lock, every other line kept as it is.
extension DefaultsFile {
  /// How many times a reset reads and edits the file again when it was replaced by something
  /// that does not take the lock (an editor) before its write.
  private static let resetAttempts = 20

  /// A key's reset (see `ResettableKey`): this process's changes of the file are written first,
  /// then under the file's lock (the one every write takes) `name`'s line is removed, every
  /// other byte kept, and `stored` is given what the two files hold for `name` now (the
  /// registration file's line, if any) before any later delivery reaches the holders. A
  /// missing user file is success, and nothing is made for it.
  func reset(_ name: String, stored: (Lookup) -> Void) throws {
    // In order, before the removal: none of them can land after it.
    try writer.drain()
    // A file already missing needs no edit, and takes no lock: the lock would make its file,
    // and folders, for a value that is not there. A file made after this look was made after
    // the reset, and is read at the next load.
    let found = FileContent.read(path) != .missing
    let lock = found ? try Self.lockFile(for: path) : nil
    // Under the view lock, which deliveries and loads take too: none read before this write is
    // applied after it, and the holders are told of it before any later change.
    view.lock()
    defer { view.unlock() }
    let watch = state.withLock { $0.watches.first }
    let removed = found ? try removeLines(of: name, watch: watch) : Parsed(INIDocument())
    let identity = found ? FileIdentity.of(path) : nil
    let landed = found ? watch?.ownWritesLanded : nil
    // As after a write: what the file holds now is this process's view of it, and the holders
    // of other keys whose lines changed on disk are told (the watcher takes this write as this
    // process's own and delivers nothing).
    let (lookup, news) = state.withLock { state in
      state.user = .success(removed)
      state.userIdentity = identity
      if let landed { state.ownWritesLanded = landed }
      state.given[name]?.serial = nil
      return (Self.lookup(name, in: state), Self.news(in: &state, except: [name]))
    }
    _ = consume lock  // Let go before telling holders: one may write the file.
    stored(lookup)
    Self.deliver(news, state: state, path: path)
  }

  /// Removes every line of `name` from the file, holding its lock; returns what the file holds
  /// now.
  private func removeLines(of name: String, watch: FileWatch?) throws -> Parsed {
    for _ in 0..<Self.resetAttempts {
      let found = FileSnapshot.read(path)
      let current = found.content
      var document = try Self.parse(current, origin: path).get().document
      let (section, key) = DefaultsName.split(name)
      // Every line of the key goes, one a hand edit gave it twice too.
      document.apply([(section: section, name: key, value: INIValue?.none)])
      let data = Data(document.render().utf8)
      // No line, or no file: nothing to write.
      if current != .missing && current != .data(data) {
        do {
          try watch.replacing(with: data) { _ in
            try AtomicFile.write(data, to: path, durable: false, expected: found)
          }
        } catch is AtomicFile.Conflict {
          continue
        }
      }
      return Parsed(document)
    }
    throw TetherError.conflict(key: name, location: path)
  }
}
