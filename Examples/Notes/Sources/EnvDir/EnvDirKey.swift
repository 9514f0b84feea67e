public import Foundation
import Glibc
public import Tether

/// One value of an ``EnvDirStrategy`` folder: the file `DIRECTORY/NAME`, holding the value's
/// text and a newline.
///
/// - Load: no file is no value (holders show their default); text that does not parse as
///   `Value` is an error naming the file, and the holder keeps its value.
/// - Save: atomic. The text goes to a temporary file in the same folder, which is then renamed
///   over the value's file, so a reader sees the old value or the new one, never half of one.
///   Not durable: nothing is `fsync`ed, so a power cut may lose the latest save (Tether's file
///   strategy syncs; add `fsync` before the rename where a value must survive one).
/// - Reset: the file is removed.
/// - Changes made outside (an editor, `echo 42 > motd`) are not watched: a holder sees them at
///   its next `load()` — for `notes`, at its next start.
///
/// `Value` is a `LosslessStringConvertible` type; ``EnvDirStrategy`` makes no key of another.
public struct EnvDirKey<Value: Sendable>: ResettableKey, CustomStringConvertible {
  /// The key's name: the file's name in the folder.
  public let name: String
  /// The file holding the value.
  public let file: URL

  init(name: String, directory: URL) {
    self.name = name
    self.file = directory.appending(path: name, directoryHint: .notDirectory)
  }

  /// The file's path: keys for one file are one reference, whatever made them.
  public var id: String { file.standardizedFileURL.path }

  /// `.envdir(/home/me/.config/notes/env/motd)`.
  public var description: String { ".envdir(\(file.path))" }

  /// Reads the file: its value, nothing stored (no file), or an error naming the file.
  public func load(context: LoadContext<Value>, continuation: LoadContinuation<Value>) {
    do {
      guard let text = try readText() else { return continuation.resumeReturningInitialValue() }
      continuation.resume(returning: try parse(text))
    } catch {
      continuation.resume(throwing: error)
    }
  }

  /// Delivers nothing: the folder is not watched, and an outside edit is seen at the next
  /// `load()`. (A strategy that watches would yield each change to `subscriber` here, and stop
  /// when the subscription is cancelled.)
  public func subscribe(
    context: LoadContext<Value>, subscriber: SharedSubscriber<Value>
  ) -> SharedSubscription {
    SharedSubscription {}
  }

  /// Writes the value's text and a newline, atomically.
  public func save(_ value: Value, context: SaveContext, continuation: SaveContinuation) {
    do {
      guard let value = value as? any LosslessStringConvertible else {
        throw TetherError.unsupportedType("\(Value.self)", key: name, kind: EnvDirStrategy.kind)
      }
      try writeAtomically(value.description + "\n")
      continuation.resume()
    } catch {
      continuation.resume(throwing: error)
    }
  }

  /// Removes the file (no file is already the default), then tells holders that nothing
  /// stands for the key. Saves are written before they return, so no earlier one can land
  /// after the removal.
  public func reset(stored: (Value?) -> Void) throws {
    if unlink(file.path) != 0 && errno != ENOENT {
      throw TetherError.unusableFile(file.path, reason: "cannot remove it: \(systemError())")
    }
    stored(nil)
  }

  /// The file's text without its trailing newline, or `nil` when there is no file.
  private func readText() throws -> String? {
    // Only a plain file (or a link to one) is read: a folder is an error, and a FIFO would
    // block the reader.
    var status = stat()
    guard stat(file.path, &status) == 0 else {
      if errno == ENOENT { return nil }
      throw TetherError.unusableFile(file.path, reason: systemError())
    }
    guard status.st_mode & S_IFMT == S_IFREG else {
      throw TetherError.unusableFile(file.path, reason: "not a regular file")
    }
    let data: Data
    do {
      data = try Data(contentsOf: file)
    } catch CocoaError.fileReadNoSuchFile {
      return nil  // removed since the stat
    }
    guard let text = String(data: data, encoding: .utf8) else {
      throw TetherError.invalidValue(key: name, message: "not UTF-8 text", location: file.path)
    }
    // One trailing newline, as a scalar: a value's own "\r" before it stays.
    guard text.unicodeScalars.last == "\n" else { return text }
    return String(text.unicodeScalars.dropLast())
  }

  /// `text` as a `Value`, or an error naming the file.
  private func parse(_ text: String) throws -> Value {
    guard let type = Value.self as? any LosslessStringConvertible.Type else {
      throw TetherError.unsupportedType("\(Value.self)", key: name, kind: EnvDirStrategy.kind)
    }
    guard let value = type.init(text) as? Value else {
      throw TetherError.invalidValue(
        key: name, message: "\(String(reflecting: text)) is not a value of type \(Value.self)",
        location: file.path)
    }
    return value
  }

  /// Writes `text` to a new temporary file beside ``file`` and renames it over ``file``.
  private func writeAtomically(_ text: String) throws {
    let folder = file.deletingLastPathComponent()
    do {
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    } catch {
      throw TetherError.notSaved(key: name, reason: "cannot create \(folder.path): \(error)")
    }
    // A new file of our own (O_EXCL), readable by its owner only: `.NAME.envdir-1A2B3C4D`.
    let temporary = folder.appending(path: ".\(name).envdir-\(UUID().uuidString.prefix(8))").path
    let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else {
      throw TetherError.notSaved(key: name, reason: "cannot create \(temporary): \(systemError())")
    }
    do {
      let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
      try handle.write(contentsOf: Data(text.utf8))
      try handle.close()
    } catch {
      unlink(temporary)
      throw TetherError.notSaved(key: name, reason: "cannot write \(temporary): \(error)")
    }
    guard rename(temporary, file.path) == 0 else {
      let reason = "cannot rename \(temporary) to \(file.path): \(systemError())"
      unlink(temporary)
      throw TetherError.notSaved(key: name, reason: reason)
    }
  }

  private func systemError() -> String { String(cString: strerror(errno)) }
}
