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

  /// Writes `text` atomically once it parses as JSON.
  package func setStoredText(_ text: String, of name: String, options: StrategyOptions) throws {
    let url = try location(of: name, options: options)
    let data = Data(text.utf8)
    do {
      _ = try JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed)
    } catch {
      throw StoredTextError("the value is not JSON, so \(url.path) was not changed")
    }
    try AtomicFile.write(data, to: ResolvedPath.of(url), durable: false, expected: nil)
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
