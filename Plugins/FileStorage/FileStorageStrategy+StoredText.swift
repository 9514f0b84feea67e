import Foundation
package import Tether
import TetherFiles
import TetherWatcher

extension FileStorageStrategy: StoredTextStrategy {
  /// The file, in words; it is not opened, so a pattern's placeholder name may be given.
  package func storageLocation(of name: String, options: StrategyOptions) throws -> String {
    try describedLocation(of: name, options: options).path
  }

  /// The file's bytes as text; a missing file is no value.
  package func storedText(of name: String, options: StrategyOptions) throws -> StoredText {
    let url = try location(of: name, options: options)
    switch FileContent.read(url.path) {
    case .missing: return .absent("no value (\(url.path) does not exist)")
    case .unreadable(let error): throw StoredTextError("\(url.path): \(error)")
    case .data(let data): return .text(String(decoding: data, as: UTF8.self))
    }
  }

  /// The file, when it exists.
  package func valueSource(of name: String, options: StrategyOptions) throws -> String? {
    let url = try location(of: name, options: options)
    switch FileContent.read(url.path) {
    case .missing: return nil
    case .unreadable(let error): throw StoredTextError("\(url.path): \(error)")
    case .data: return url.path
    }
  }

  /// Writes `text` once it parses as JSON, as a holder of the key writes a value: through the
  /// file's store (``StoredJSON`` is the value), so the tool gets every guarantee of a holder's
  /// `save()` — a file that is not JSON kept beside as `NAME.corrupt-<stamp>` first, the file's
  /// mode kept, the strategy's durability, and the write compared with what was read.
  package func setStoredText(
    _ text: String, of name: String, options: StrategyOptions
  ) async throws {
    let url = try location(of: name, options: options)
    let value = StoredJSON(bytes: Data(text.utf8))
    guard value.isJSON else {
      throw StoredTextError("the value is not JSON, so \(url.path) was not changed")
    }
    let key = storedJSONKey(url)
    // Loaded first, as a holder is: bytes that are not JSON are noted by the store, which keeps
    // them as a backup before the write replaces them.
    let loaded = await withCheckedContinuation { continuation in
      key.load(
        context: .userInitiated,
        continuation: LoadContinuation(subject: key) { continuation.resume(returning: $0) })
    }
    switch loaded {
    case .success, .failure(is StoredJSON.NotJSON): break
    case .failure(let error):
      throw StoredTextError("\(url.path) could not be read (\(error)), so it was not changed")
    case nil:
      throw StoredTextError("\(url.path) could not be read, so it was not changed")
    }
    // Watched while it is written, as a holder's file is: the write replaces only the content
    // the watcher knows the file holds (an edit made meanwhile is a conflict, not overwritten).
    let subscription = key.subscribe(
      context: .userInitiated, subscriber: SharedSubscriber { _ in })
    defer { subscription.cancel() }
    let saved = await withCheckedContinuation { continuation in
      key.save(
        value, context: .userInitiated,
        continuation: SaveContinuation(subject: key) { continuation.resume(returning: $0) })
    }
    switch saved {
    case .success: return
    case .failure(TetherError.conflict):
      throw TetherError.conflict(key: name, location: url.path)
    case .failure(let error):
      throw TetherError.notSaved(key: name, reason: "\(url.path): \(error)")
    case nil:
      throw TetherError.notSaved(key: name, reason: "\(url.path): the write did not finish")
    }
  }

  /// Removes the file as a holder's `reset()` does, through the key of its JSON: under its
  /// lock, bytes that are not JSON kept beside it as `NAME.corrupt-<stamp>` first; a missing
  /// file is success.
  package func resetStoredValue(of name: String, options: StrategyOptions) async throws {
    let url = try location(of: name, options: options)
    try storedJSONKey(url).reset { _ in }
  }

  /// The key the tool reads and writes `url` through: its value is the file's JSON, of no
  /// type the tool knows, and bytes that are not JSON do not decode.
  private func storedJSONKey(_ url: URL) -> FileStorageKey<StoredJSON> {
    FileStorageKey<StoredJSON>(
      url: url, settings: settings, encode: { $0.bytes },
      decode: { bytes in
        let stored = StoredJSON(bytes: bytes)
        guard stored.isJSON else { throw StoredJSON.NotJSON() }
        return stored
      })
  }

  package func watchStoredText(
    of name: String, options: StrategyOptions,
    onChange: @escaping @Sendable (Result<StoredText, any Error>) -> Void
  ) throws -> SharedSubscription {
    let url = try location(of: name, options: options)
    let watch = FileWatcher.shared.watch(ResolvedPath.of(url)) { content in
      switch content {
      case .missing: onChange(.success(.absent("no value (file removed)")))
      case .unreadable(let error): onChange(.failure(error))
      case .data(let data): onChange(.success(.text(String(decoding: data, as: UTF8.self))))
      }
    }
    return SharedSubscription { watch.cancel() }
  }
}

/// A file's value as the tool sees it: JSON bytes, of no type it knows.
///
/// The value type of the store the tool writes through, so that what the tool writes is saved
/// by the code that saves a holder's value.
struct StoredJSON: Sendable {
  /// Bytes that do not parse as JSON: the file is corrupt for the tool, as a file that does not
  /// decode is for a holder.
  struct NotJSON: Error {}

  let bytes: Data

  var isJSON: Bool {
    do {
      _ = try JSONSerialization.jsonObject(with: bytes, options: .fragmentsAllowed)
      return true
    } catch {
      return false
    }
  }
}
