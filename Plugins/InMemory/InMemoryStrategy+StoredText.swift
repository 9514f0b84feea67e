package import Tether

extension InMemoryStrategy: StoredTextStrategy {
  package func storageLocation(of name: String, options: StrategyOptions) throws -> String {
    "in memory (in the process that holds it)"
  }

  /// Nothing: the value lives in the memory of the process that holds it.
  package func storedText(of name: String, options: StrategyOptions) throws -> StoredText {
    .absent("kept in memory by the process that holds it; nothing is stored")
  }

  /// Nothing is stored outside the holding process.
  package func valueSource(of name: String, options: StrategyOptions) throws -> String? { nil }

  package func setStoredText(_ text: String, of name: String, options: StrategyOptions) throws {
    throw StoredTextError("kept in memory by the process that holds it; there is nothing to set")
  }

  package func resetStoredValue(of name: String, options: StrategyOptions) async throws {
    throw StoredTextError("kept in memory by the process that holds it; there is nothing to reset")
  }

  package func watchStoredText(
    of name: String, options: StrategyOptions,
    onChange: @escaping @Sendable (Result<StoredText, any Error>) -> Void
  ) throws -> SharedSubscription {
    throw StoredTextError("not stored in a file; nothing to watch")
  }
}
