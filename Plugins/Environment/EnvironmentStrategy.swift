public import Tether

/// The `environment` strategy: registered keys are read from environment variables, and never
/// written.
///
/// ```ini
/// [keys]
/// ui.* = environment
///
/// [strategy.environment]
/// prefix = NOTES_
/// ```
///
/// Key `ui.theme` reads `NOTES_UI_THEME`: the prefix, then the name with ASCII letters
/// upper-cased and `.` and `-` turned into `_` (digits and `_` stay). Names that differ only in
/// those (`ui.theme`, `ui-theme`, `UI_THEME`) read the same variable, which for a strategy that
/// only reads is one value shown twice, never two values that disagree.
///
/// The variable's text is read with the literal forms of a defaults file, as it is, unquoted
/// and untrimmed: `true`/`false` (also `yes`/`no`, `on`/`off`, `1`/`0`), decimal integers,
/// `0.5`/`inf`/`nan`, text, an absolute URL, an RFC 3339 date, `base64:…` data, a UUID,
/// `RawRepresentable` over those, `Optional`s (an empty variable is `nil`) and one-line JSON
/// arrays (`[1, 2]`). Any other type is `TetherError.unsupportedType`.
///
/// - An unset variable gives the key's default.
/// - A variable whose text is not a value of the key's type gives the default, and `loadError`
///   is `TetherError.invalidValue` naming the key and the variable.
/// - A process's environment changes only from inside it, so keys deliver no changes.
/// - It only reads (`ReadOnlyPersistenceStrategy`): `@SharedReader` reads its keys; `@Shared`
///   keeps changes in memory with `saveError` `TetherError.readOnly`.
public struct EnvironmentStrategy: ReadOnlyPersistenceStrategy {
  /// `environment`.
  public static let kind = "environment"
  /// Keys read no options of their own.
  public static var keyOptionNames: Set<String>? { [] }

  /// What every variable name starts with: `NOTES_`; empty by default.
  public let prefix: String

  /// Reads `prefix`: letters, digits and `_`, not starting with a digit (a name a shell can
  /// set).
  public init(options: StrategyOptions) throws {
    let prefix = options["prefix"] ?? ""
    let isValid = prefix.unicodeScalars.allSatisfy { Self.isVariableScalar($0) }
    guard isValid, !(prefix.unicodeScalars.first.map { ("0"..."9").contains($0) } ?? false) else {
      throw options.invalid(
        "prefix",
        "\(String(reflecting: prefix)) is not the start of a variable name: use letters, "
          + "digits and \"_\", not starting with a digit (NOTES_)")
    }
    self.prefix = prefix
  }

  /// The variable key `name` reads: `ui.theme` with prefix `NOTES_` is `NOTES_UI_THEME`.
  public func variable(for name: String) -> String {
    var variable = prefix
    for scalar in name.unicodeScalars {
      switch scalar {
      case ".", "-": variable += "_"
      case "a"..."z": variable += String(scalar).uppercased()
      default: variable.unicodeScalars.append(scalar)
      }
    }
    return variable
  }

  /// The key reading `name`'s variable; throws `unsupportedType` for a type no literal holds,
  /// `invalidKeyName` for a name outside the grammar.
  public func readerKey<Value: Sendable>(
    named name: String, as type: Value.Type, options: StrategyOptions
  ) throws -> any SharedReaderKey<Value> {
    try KeyName.validate(name)
    if case .failure(let error) = EnvironmentKey<Value>.coding(for: name) { throw error }
    return EnvironmentKey<Value>(variable: variable(for: name), key: name)
  }

  private static func isVariableScalar(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar {
    case "A"..."Z", "a"..."z", "0"..."9", "_": return true
    default: return false
    }
  }
}
