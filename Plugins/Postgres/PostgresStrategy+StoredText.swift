import Foundation
package import Tether

extension PostgresStrategy: StoredTextStrategy {
  /// The server, the table and the row's key.
  package func storageLocation(of name: String, options: StrategyOptions) throws -> String {
    "row \"\(options["name"] ?? name)\" of \(settings)"
  }

  /// The row's JSON; no row is no value.
  package func storedText(of name: String, options: StrategyOptions) throws -> StoredText {
    let handle = try self.handle(of: name, options: options)
    guard let found = try fetch(handle) else {
      return .absent("no value (no row \"\(handle.row.name)\" in \(settings))")
    }
    return .text(found.json)
  }

  /// The row, when there is one.
  package func valueSource(of name: String, options: StrategyOptions) throws -> String? {
    let handle = try self.handle(of: name, options: options)
    return try fetch(handle) == nil ? nil : try storageLocation(of: name, options: options)
  }

  /// Writes `text` once it parses as JSON, with the statement a holder's `save()` writes with:
  /// over the version read first, so that a row changed meanwhile is a conflict, not
  /// overwritten.
  package func setStoredText(
    _ text: String, of name: String, options: StrategyOptions
  ) async throws {
    let handle = try self.handle(of: name, options: options)
    guard Self.isJSON(text) else {
      throw StoredTextError("the value is not JSON, so row \"\(handle.row.name)\" was not changed")
    }
    let settings = self.settings
    try await TransactionThread.run {
      do {
        let found = try handle.row.fetchNow()
        guard try handle.row.writeNow(text, base: found?.version ?? 0) != nil else {
          throw TetherError.conflict(key: handle.row.name, location: settings.description)
        }
      } catch let failure as PostgresFailure {
        throw handle.row.error(for: failure)
      }
    }
  }

  /// Deletes the row as a holder's `reset()` does.
  package func resetStoredValue(of name: String, options: StrategyOptions) async throws {
    let handle = try self.handle(of: name, options: options)
    try await TransactionThread.run {
      try handle.row.reset(writer: handle.writer) { (_: String?) in }
    }
  }

  /// Each change of the row, as its holders see them.
  package func watchStoredText(
    of name: String, options: StrategyOptions,
    onChange: @escaping @Sendable (Result<StoredText, any Error>) -> Void
  ) throws -> SharedSubscription {
    let handle = try self.handle(of: name, options: options)
    let subscription = handle.row.subscribe(
      RowSubscriber(
        changed: { content, seen in
          switch content {
          case .json(let json): onChange(.success(.text(json)))
          case .missing: onChange(.success(.absent("no value (the row was deleted)")))
          }
          seen()  // A watcher of the text makes no change.
        },
        unavailable: { onChange(.failure($0)) }, recovered: {}, saved: { _ in }))
    // The subscription keeps the handle, so the row stays watched while it is.
    return SharedSubscription {
      subscription.cancel()
      _ = handle
    }
  }

  private static func isJSON(_ text: String) -> Bool {
    do {
      _ = try JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed)
      return true
    } catch {
      return false
    }
  }

  private func handle(of name: String, options: StrategyOptions) throws -> PostgresRowHandle {
    let row = options["name"] ?? name
    try KeyName.validate(row)
    return PostgresStores.current.store(settings).handle(named: row)
  }

  private func fetch(_ handle: PostgresRowHandle) throws -> (json: String, version: Int64)? {
    do {
      return try handle.row.fetchNow()
    } catch let failure as PostgresFailure {
      throw handle.row.error(for: failure)
    }
  }
}
