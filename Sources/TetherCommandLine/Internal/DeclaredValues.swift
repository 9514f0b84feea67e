import Foundation
import Tether
import TetherDefaults

/// A value as the tool shows it: the text a person reads and `set` takes back, and its JSON.
struct ShownValue {
  /// The INI literal for a scalar (`42`, `true`, `"two words"`), JSON for anything else.
  let text: String
  /// The value as JSON (a parsed object, array, string, number, bool or null), for `--json`.
  let json: Any
}

/// Declared keys, read and written as their types through `Shared`, in the current scope: the
/// same code paths an app's holders take, so every guarantee of the store holds for the tool.
/// Each function is generic over the key and opened from `any DeclaredKey` by its caller.
enum DeclaredValues {
  /// The value in effect, and whether something is stored (else it is the default).
  static func read<K: DeclaredKey>(_ key: K) async throws -> (shown: ShownValue, stored: Bool) {
    do {
      let shared = try await Shared(require: key.key.base)
      return (try show(shared.wrappedValue), true)
    } catch TetherError.noValue {
      return (try show(key.defaultValue), false)
    }
  }

  /// The default, shown.
  static func defaultValue<K: DeclaredKey>(of key: K) throws -> ShownValue {
    try show(key.defaultValue)
  }

  /// Parses `text` as the key's type and saves it; throws a sentence naming the type, with
  /// nothing written, when it does not fit.
  static func set<K: DeclaredKey>(_ key: K, text: String) async throws {
    try await save(key, try parse(text, as: K.Value.self, key: key.name))
  }

  /// Checks that `json` is a value of the key's type; the value, for ``save(_:_:)``.
  static func check<K: DeclaredKey>(_ key: K, json: Any) throws -> any Sendable {
    let data: Data
    do {
      data = try JSONSerialization.data(withJSONObject: json, options: .fragmentsAllowed)
      return try JSONDecoder().decode(K.Value.self, from: data)
    } catch {
      throw ValueError(
        "\(key.name): \(Output.jsonText(json)) is not a value of type \(key.typeName): "
          + describe(error))
    }
  }

  /// Saves `value`, which ``check(_:json:)`` made for this key.
  static func save<K: DeclaredKey>(_ key: K, checked value: any Sendable) async throws {
    guard let value = value as? K.Value else {
      throw ValueError("\(key.name): the value checked is not a \(key.typeName)")
    }
    try await save(key, value)
  }

  /// Removes the stored value: every holder shows its default.
  static func reset<K: DeclaredKey>(_ key: K) async throws {
    try await Shared(wrappedValue: key.defaultValue, key.key.base).reset()
  }

  /// Calls `report` with the value now, then with each change, until the task is cancelled.
  static func watch<K: DeclaredKey>(
    _ key: K, report: @escaping @Sendable (Result<ShownValue, any Error>) -> Void
  ) async {
    let shared = Shared(wrappedValue: key.defaultValue, key.key.base)
    if let error = shared.loadError { report(.failure(error)) }
    for await value in shared.changes {
      report(Result { try show(value) })
    }
  }

  private static func save<Value: Sendable>(
    _ key: some DeclaredKey<Value>, _ value: Value
  )
    async throws
  {
    let shared = Shared(wrappedValue: key.defaultValue, key.key.base)
    shared.withLock { $0 = value }
    try await shared.save()
  }

  /// `value` as text and JSON.
  static func show<Value: Encodable>(_ value: Value) throws -> ShownValue {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    let data = try encoder.encode(value)
    let json = try JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed)
    guard let coding = LiteralCoding<Value>.make() else {
      return ShownValue(text: String(decoding: data, as: UTF8.self), json: json)
    }
    switch try coding.encode(value) {
    case .text(let text): return ShownValue(text: INIString.encode(text), json: json)
    case .empty: return ShownValue(text: "", json: json)
    }
  }

  /// `text` as a `Value`: an INI literal for the types a defaults file holds (`42`, `true`,
  /// `"two words"`, `[1,2]`, empty for an optional's nil), JSON for any other `Codable` type.
  static func parse<Value: Decodable>(
    _ text: String, as type: Value.Type, key: String
  ) throws
    -> Value
  {
    let typeName = TypeName.of(Value.self)
    let shown = String(reflecting: text.count > 60 ? String(text.prefix(60)) + "…" : text)
    guard let coding = LiteralCoding<Value>.make() else {
      do {
        return try JSONDecoder().decode(Value.self, from: Data(text.utf8))
      } catch {
        throw ValueError(
          "\(key): \(shown) is not JSON of type \(typeName): \(describe(error)); nothing was "
            + "written")
      }
    }
    let literal = text.trimmingCharacters(in: .whitespacesAndNewlines)
    do {
      let value: INIValue =
        literal.isEmpty ? .empty : .text(try INIString.decode(literal, location: "<value>"))
      return try coding.decode(value)
    } catch let invalid as InvalidLiteral {
      throw ValueError(
        "\(key): \(shown) is not a value of type \(typeName): \(invalid.message); nothing was "
          + "written")
    } catch {
      throw ValueError(
        "\(key): \(shown) is not a value of type \(typeName): "
          + "\(String(describing: error).replacingOccurrences(of: "<value>: ", with: "")); "
          + "nothing was written")
    }
  }

  /// A decoding error in a sentence: what was expected where.
  private static func describe(_ error: any Error) -> String {
    switch error {
    case DecodingError.typeMismatch(let type, let context),
      DecodingError.valueNotFound(let type, let context):
      return "expected \(expected(type))\(path(context))"
    case DecodingError.keyNotFound(let key, let context):
      return "missing \"\(key.stringValue)\"\(path(context))"
    case DecodingError.dataCorrupted(let context):
      return context.debugDescription + path(context)
    default:
      return "\(error)"
    }
  }

  /// What a decoder expected, in words: a JSON array or object rather than `[Any]`.
  private static func expected(_ type: Any.Type) -> String {
    switch TypeName.of(type) {
    case "[Any]": return "a JSON array"
    case "[String: Any]": return "a JSON object"
    case let name: return name
    }
  }

  private static func path(_ context: DecodingError.Context) -> String {
    let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }
    return path.isEmpty ? "" : " at \(path.joined())"
  }
}

/// A value the tool refuses, in a sentence for the user.
struct ValueError: Error, CustomStringConvertible {
  let description: String

  init(_ description: String) {
    self.description = description
  }
}
