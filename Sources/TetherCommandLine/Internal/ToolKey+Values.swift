import Foundation
import Tether

/// What the commands do with a key, for every way the tool reaches one.
extension ToolKey {
  /// The value in effect and where it comes from (`nil`: the default, or nothing stored).
  struct Reading {
    let value: ShownValue?
    /// Said when there is no value: `no value (… does not exist)`.
    let absence: String?
    let source: String?
    /// Said beside the value: it is a registered default, say.
    var note: String? = nil
  }

  /// Reads the value; throws a sentence when it cannot be read.
  func read() async throws -> Reading {
    switch access {
    case .declared(let key):
      let (shown, stored) = try await DeclaredValues.read(key)
      return Reading(
        value: shown, absence: nil, source: stored ? (try source() ?? "stored") : nil)
    case .storedText(let strategy):
      switch try strategy.storedText(of: name, options: options) {
      case .text(let text, let note):
        return Reading(
          value: Self.shown(stored: text), absence: nil, source: try source(), note: note)
      case .absent(let reason):
        return Reading(value: nil, absence: reason, source: nil)
      }
    case .opaque, .foreign:
      throw ValueError(unreachable("read"))
    }
  }

  /// Writes `text`, parsed as the key's type (declared) or checked as its stored form.
  func write(_ text: String) async throws {
    switch access {
    case .declared(let key): try await DeclaredValues.set(key, text: text)
    case .storedText(let strategy):
      do {
        try await strategy.setStoredText(text, of: name, options: options)
      } catch let error as StoredTextError {
        throw ValueError("\(name): \(error)")
      }
    case .opaque, .foreign: throw ValueError(unreachable("write"))
    }
  }

  /// Removes the stored value.
  func reset() async throws {
    switch access {
    case .declared(let key): try await DeclaredValues.reset(key)
    case .storedText(let strategy): try await strategy.resetStoredValue(of: name, options: options)
    case .opaque, .foreign: throw ValueError(unreachable("reset"))
    }
  }

  /// The value as `export` writes it, `nil` when nothing is stored.
  func exported() async throws -> Any? {
    let reading = try await read()
    guard reading.source != nil, let value = reading.value else { return nil }
    return value.json
  }

  /// Checks `json` as `import` would write it, without writing; what ``write(checked:)`` takes.
  func check(json: Any) throws -> Checked {
    switch access {
    case .declared(let key): return .value(try DeclaredValues.check(key, json: json))
    case .storedText(let strategy): return .text(try strategy.storedText(fromJSON: json))
    case .opaque, .foreign: throw ValueError(unreachable("import"))
    }
  }

  /// A value `import` checked.
  enum Checked {
    case value(any Sendable)
    case text(String)
  }

  /// Writes what ``check(json:)`` accepted.
  func write(checked: Checked) async throws {
    switch (access, checked) {
    case (.declared(let key), .value(let value)):
      try await DeclaredValues.save(key, checked: value)
    case (_, .text(let text)): try await write(text)
    default: throw ValueError("\(name): the checked value does not match the key")
    }
  }

  /// Where the stored value comes from, in words, when the strategy can say.
  private func source() throws -> String? {
    guard let textForm else { return "stored by the \(kind) strategy" }
    return try textForm.valueSource(of: name, options: options)
  }

  /// A stored text, with its JSON when it is JSON (a file's), else the text as a string.
  static func shown(stored text: String) -> ShownValue {
    do {
      let json = try JSONSerialization.jsonObject(
        with: Data(text.utf8), options: .fragmentsAllowed)
      return ShownValue(text: text, json: json)
    } catch {
      return ShownValue(text: text, json: text)
    }
  }
}
