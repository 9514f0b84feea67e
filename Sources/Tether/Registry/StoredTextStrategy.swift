import Foundation

/// A strategy whose stored values have a text form a person reads and writes (JSON for files,
/// an INI literal for defaults): what the `tether` tool gets, sets and watches, through the
/// strategy's own code and without knowing which strategy it is.
///
/// Each method that reads, writes or watches checks `name` against ``KeyName`` itself
/// (`TetherError.invalidKeyName`): no caller gets an invalid name past the strategy.
package protocol StoredTextStrategy: PersistenceStrategy {
  /// Where `name`'s value lives, in words: a file, a defaults file and its line. Nothing is
  /// opened, so a pattern's placeholder (`session.<name>`) may be given.
  func storageLocation(of name: String, options: StrategyOptions) throws -> String

  /// What is stored for `name`; throws when it cannot be read.
  func storedText(of name: String, options: StrategyOptions) throws -> StoredText

  /// Where the value a holder of `name` loads comes from: the file, a defaults file's
  /// `path:line`, a registration file's (`registration path:line`); `nil` when nothing is
  /// stored, and holders show their default.
  func valueSource(of name: String, options: StrategyOptions) throws -> String?

  /// Checks that `text` is a stored form of a value and writes it through the code a holder's
  /// `save()` writes with (so its backups, locks and checks hold for the tool too); throws a
  /// ``StoredTextError`` saying why, with the store untouched, when it is not.
  func setStoredText(_ text: String, of name: String, options: StrategyOptions) async throws

  /// The stored text for `json`, a value as the tool exports it (parsed JSON): what
  /// ``setStoredText(_:of:options:)`` takes back. By default its JSON text, for strategies whose
  /// stored form is JSON.
  func storedText(fromJSON json: Any) throws -> String

  /// Removes what is stored for `name` through the code a holder's `reset()` runs (its lock,
  /// its backups of what does not decode), so that a holder of it anywhere shows its default;
  /// nothing stored is success. Throws, naming the store, when it cannot.
  func resetStoredValue(of name: String, options: StrategyOptions) async throws

  /// Calls `onChange` with each change of what is stored for `name` until the subscription is
  /// cancelled; throws when `name` cannot be watched.
  func watchStoredText(
    of name: String, options: StrategyOptions,
    onChange: @escaping @Sendable (Result<StoredText, any Error>) -> Void
  ) throws -> SharedSubscription
}

extension StoredTextStrategy {
  /// The JSON text of `json`.
  package func storedText(fromJSON json: Any) throws -> String {
    try StoredText.json(json)
  }
}

/// What a strategy stores for a key, as text.
package enum StoredText: Sendable, Equatable {
  /// The stored text, with a note when it does not come from the key's own store (a registered
  /// default).
  case text(String, note: String? = nil)
  /// Nothing is stored, and why, in words.
  case absent(String)

  /// `json` as one line of JSON text, keys sorted.
  package static func json(_ json: Any) throws -> String {
    let data = try JSONSerialization.data(
      withJSONObject: json, options: [.sortedKeys, .fragmentsAllowed, .withoutEscapingSlashes])
    return String(decoding: data, as: UTF8.self)
  }
}

/// Why a strategy refuses a stored text, or has none to give: a sentence for the user.
package struct StoredTextError: Error, CustomStringConvertible {
  package let description: String

  package init(_ description: String) {
    self.description = description
  }
}
