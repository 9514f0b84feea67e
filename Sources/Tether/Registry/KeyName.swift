/// The grammar of key names: what the registry accepts, and what every strategy checks the
/// names it is given against, so that no name — from code, a config or the `tether` tool — can
/// lead a strategy out of its folder (`../x`, `a/b`) or add lines to its file (a newline, `[`).
///
/// A name is 1 to ``maximumLength`` bytes of letters, digits, `_`, `-` and `.`, with dots only
/// between parts (`ui.theme`): the names a config file can write under `[keys]`, without the
/// `*` of patterns.
///
/// ```swift
/// try KeyName.validate("ui.theme")   // fine
/// try KeyName.validate("../escaped") // TetherError.invalidKeyName
/// ```
public enum KeyName {
  /// The longest name, in UTF-8 bytes: a file strategy's `NAME.json`, its temporary
  /// `.NAME.json.tether-XXXXXX` and its backup `NAME.json.corrupt-<stamp>` all stay within a
  /// file name's 255 bytes.
  public static let maximumLength = 200

  /// Throws ``TetherError/invalidKeyName(_:reason:)`` saying what is wrong with `name`, unless
  /// it is a valid key name.
  public static func validate(_ name: String) throws(TetherError) {
    if let reason = problem(with: name) { throw .invalidKeyName(name, reason: reason) }
  }

  /// What is wrong with `name`, in words, or `nil` when it is a valid key name.
  public static func problem(with name: String) -> String? {
    let bytes = name.utf8
    if bytes.isEmpty { return "a key name cannot be empty" }
    if bytes.count > maximumLength {
      return "it is \(bytes.count) bytes long; a key name has at most \(maximumLength)"
    }
    if let control = name.unicodeScalars.first(where: { $0.properties.generalCategory == .control })
    {
      return "it contains the control character \(quoted(String(control))); "
        + "a key name is one line of letters, digits, \"_\", \"-\" and \".\""
    }
    if name.contains("/") { return "\"/\" would make a path of it; use \".\" between parts" }
    if name.contains("*") { return "\"*\" is for patterns under [keys], not for a key's name" }
    if let other = name.unicodeScalars.first(where: { !isNameScalar($0) }) {
      return "it contains \(quoted(String(other))); "
        + "a key name uses letters, digits, \"_\", \"-\" and \".\" only"
    }
    if name.hasPrefix(".") || name.hasSuffix(".") || name.contains("..") {
      return "dots go between the parts of a name (ui.theme), not first, last or twice in a row"
    }
    return nil
  }

  /// `name` quoted for a message, with control characters escaped and a long name cut short.
  package static func quoted(_ name: String) -> String {
    let shown = name.unicodeScalars.count > 60 ? String(name.unicodeScalars.prefix(40)) : name
    let quoted = String(reflecting: shown)
    return shown == name ? quoted : quoted.dropLast() + "…\" (\(name.utf8.count) bytes)"
  }

  private static func isNameScalar(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar {
    case "A"..."Z", "a"..."z", "0"..."9", "_", "-", ".": return true
    default: return false
    }
  }
}
