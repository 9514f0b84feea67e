package import Tether

/// What the `tether` tool shows of an environment key: the variable's text. It cannot set or
/// reset one: a tool's changes to its own environment would end with it.
extension EnvironmentStrategy: StoredTextStrategy {
  /// `environment variable NOTES_UI_THEME`.
  package func storageLocation(of name: String, options: StrategyOptions) throws -> String {
    "environment variable \(variable(for: name))"
  }

  /// The variable's text, as it is.
  package func storedText(of name: String, options: StrategyOptions) throws -> StoredText {
    try KeyName.validate(name)
    let variable = variable(for: name)
    guard let text = EnvironmentVariables.value(of: variable) else {
      return .absent("no value (\(variable) is not set)")
    }
    return .text(text)
  }

  /// The variable, when it is set.
  package func valueSource(of name: String, options: StrategyOptions) throws -> String? {
    try KeyName.validate(name)
    let variable = variable(for: name)
    return EnvironmentVariables.value(of: variable).map { _ in "environment variable \(variable)" }
  }

  /// Refused: the environment strategy only reads.
  package func setStoredText(_ text: String, of name: String, options: StrategyOptions) throws {
    try KeyName.validate(name)
    throw refusal(name)
  }

  /// Refused: the environment strategy only reads.
  package func resetStoredValue(of name: String, options: StrategyOptions) throws {
    try KeyName.validate(name)
    throw refusal(name)
  }

  /// Delivers nothing: no other process can change this one's environment.
  package func watchStoredText(
    of name: String, options: StrategyOptions,
    onChange: @escaping @Sendable (Result<StoredText, any Error>) -> Void
  ) throws -> SharedSubscription {
    try KeyName.validate(name)
    return SharedSubscription {}
  }

  private func refusal(_ name: String) -> StoredTextError {
    StoredTextError(
      "the \(Self.kind) strategy only reads; set \(variable(for: name)) in the environment of "
        + "the program that reads it")
  }
}
