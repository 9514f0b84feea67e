/// A key an app declares once — name, type, default and a one-line summary — so that startup
/// and the settings tool know it, not only the code that holds it.
///
/// Declare the key as usual, then hand its declaration to `bootstrap`:
///
/// ```swift
/// extension SharedKey where Self == RegisteredKey<Int>.Default {
///   static var launches: Self { Self[.registered("launches"), default: 0] }
/// }
///
/// try TetherSystem.bootstrap(
///   configuration: .file("Config/tether.conf"),
///   strategies: [InMemoryStrategy.self, FileStorageStrategy.self, DefaultsStrategy.self],
///   keys: [.key(.launches, "How many times the app has started.")])
/// ```
///
/// With declarations, `bootstrap` checks everything at once and throws every problem, each at
/// its `file:line`: a declared key the config does not map, a `[keys]` name or `[key.NAME]`
/// section no declared key has (with the nearest declared name), a type the mapped strategy
/// cannot store. A `TetherCommand` built with them reads and writes each key as its type.
/// Keys that are not declared keep working as before.
public struct KeyDeclaration: Sendable, CustomStringConvertible {
  /// The registered name.
  public var name: String { typed.name }
  /// One line saying what the value is for.
  public let summary: String
  /// The value type as Swift writes it: `Int`, `[Note]`, `String?`.
  public var typeName: String { typed.typeName }
  /// Where the declaration is written, `file:line`.
  public let location: String
  /// The key, with its value type, for code that works on values of any declared type.
  package let typed: any DeclaredKey

  /// Declares `key`: its name, value type and default, and `summary`, one line on what the
  /// value is for.
  public static func key<Value: Codable & Sendable>(
    _ key: RegisteredKey<Value>.Default, _ summary: String,
    file: String = #filePath, line: Int = #line
  ) -> KeyDeclaration {
    KeyDeclaration(summary: summary, location: "\(file):\(line)", typed: Declared(key: key))
  }

  /// `launches: Int — How many times the app has started.`
  public var description: String { "\(name): \(typeName) — \(summary)" }
}

/// A declared key with its value type, to be opened by code generic over the value (the
/// settings tool parses, prints and saves through it).
package protocol DeclaredKey<Value>: Sendable {
  associatedtype Value: Codable & Sendable
  /// The key with its default.
  var key: RegisteredKey<Value>.Default { get }
}

extension DeclaredKey {
  /// The registered name.
  package var name: String { key.base.name }
  /// The value type as Swift writes it.
  package var typeName: String { TypeName.of(Value.self) }
  /// The value type.
  package var valueType: Any.Type { Value.self }
  /// The default, evaluated now.
  package var defaultValue: Value { key.defaultValue() }
}

private struct Declared<Value: Codable & Sendable>: DeclaredKey {
  let key: RegisteredKey<Value>.Default
}

/// Type names as Swift source writes them.
package enum TypeName {
  /// `[Note]` for `Array<Note>`, `String?` for `Optional<String>`, `[String: Int]` for a
  /// dictionary; module prefixes dropped.
  package static func of(_ type: Any.Type) -> String {
    sugared(String(describing: type))
  }

  private static func sugared(_ name: String) -> String {
    guard let open = name.firstIndex(of: "<"), name.hasSuffix(">") else { return name }
    let base = name[..<open]
    let arguments = split(name[name.index(after: open)..<name.index(before: name.endIndex)])
      .map(sugared)
    switch (base, arguments.count) {
    case ("Array", 1): return "[\(arguments[0])]"
    case ("Optional", 1):
      // A function or composition type would need parentheses; keys hold neither.
      return "\(arguments[0])?"
    case ("Dictionary", 2): return "[\(arguments[0]): \(arguments[1])]"
    default: return "\(base)<\(arguments.joined(separator: ", "))>"
    }
  }

  /// Top-level comma-separated generic arguments.
  private static func split(_ text: Substring) -> [String] {
    var parts: [String] = []
    var depth = 0
    var current = ""
    for character in text {
      switch character {
      case "<", "[", "(": depth += 1
      case ">", "]", ")": depth -= 1
      case "," where depth == 0:
        parts.append(current.trimmingSpaces())
        current = ""
        continue
      default: break
      }
      current.append(character)
    }
    parts.append(current.trimmingSpaces())
    return parts
  }
}

extension String {
  fileprivate func trimmingSpaces() -> String {
    String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
  }
}
