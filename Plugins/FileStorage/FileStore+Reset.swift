import Foundation
import Glibc
import Tether
import TetherFiles
import TetherWatcher

/// Resets: the file removed under its lock, bytes that do not decode kept beside it first.
extension FileStore {
  /// A key's reset (see `ResettableKey`): this process's changes of the file are written first,
  /// then under the file's lock (`.NAME.lock`, which transactions take) the file is removed and
  /// `stored` tells the holders, before any later delivery of the file reaches them.
  ///
  /// Bytes that `decodes` refuses are kept beside the file as `NAME.corrupt-<UTC time>` first,
  /// as a write over them keeps them. A missing file is success; anything but a regular file
  /// at the path is an error naming it, and stays.
  func reset(decodes: (Data) -> Bool, stored: () -> Void) throws {
    // In order, before the removal: none of them can land after it.
    try existingWriter?.drain()
    // A file already missing needs no removal, and takes no lock: the lock would make its
    // file, and folders, for a value that is not there. A file made after this look was made
    // after the reset, and stays.
    let found = FileContent.read(path) != .missing
    let lock = found ? try Self.lockFile(beside: path) : nil
    // Under the view lock, which deliveries take too: none read before the removal is
    // delivered after it, and the holders are told of it before any later change.
    state.view.lock()
    defer { state.view.unlock() }
    let watch = state.withLock { $0.watch }
    if found {
      try watch.removing { try Self.remove(path, keepingUnless: decodes) }
    }
    let landed = found ? watch?.ownWritesLanded : nil
    state.withLock { state in
      state.corrupt = nil
      // What a load or a key read before is not the file any more, nor what it last wrote.
      state.lastRead = nil
      state.lastWrite = nil
      if let landed { state.ownWritesLanded = landed }
    }
    _ = consume lock
    stored()
  }

  /// Removes the file at `path`, first keeping it beside as `NAME.corrupt-<stamp>` when its
  /// bytes are not a value by `decodes`; one already gone is no error.
  private static func remove(_ path: String, keepingUnless decodes: (Data) -> Bool) throws {
    switch FileContent.read(path) {
    case .missing:
      return
    case .unreadable(.notRegular(_, let type)):
      throw TetherError.unusableFile(
        path, reason: "it is \(type), not a regular file; it was not removed")
    case .unreadable(let error):
      throw TetherError.unusableFile(path, reason: "cannot be read, so not removed: \(error)")
    case .data(let data):
      // An empty file is no value: nothing in it to keep.
      if !data.isEmpty && !decodes(data) { try keepCorrupt(path, before: "removing") }
      try removeFile(path)
    }
  }

  /// Removes the file at `path`; one already gone is no error.
  private static func removeFile(_ path: String) throws {
    do {
      try systemCall("unlink", path: path) { unlink(path) }
    } catch  where error.code == ENOENT {
      return
    } catch {
      throw TetherError.unusableFile(path, reason: "cannot be removed: \(error)")
    }
  }
}
