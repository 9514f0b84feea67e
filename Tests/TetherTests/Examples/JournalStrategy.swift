import Foundation
import Synchronization
import Tether

/// An app's own strategy, as the README shows: every save is appended to a journal file, one
/// line per save, and a key's value is the last one journaled for it. Nothing is overwritten, so
/// the journal doubles as an audit trail of every change.
///
/// ```ini
/// [keys]
/// audit.* = journal
///
/// [strategy.journal]
/// file = audit.journal     # relative to the config file's folder
/// ```
///
/// Values must be `Codable`; each line is the key name as a JSON string, a tab, and the value as
/// JSON (neither can contain a raw tab or newline).
struct JournalStrategy: PersistenceStrategy {
  static let kind = "journal"
  /// It reads no per-key options, so a misspelt one is reported when the config loads.
  static var keyOptionNames: Set<String>? { [] }

  let journal: Journal

  init(options: StrategyOptions) throws {
    guard let file = try options.path("file") else {
      throw TetherError.invalidConfiguration(
        message: "[strategy.journal] needs file = PATH", location: options.origin)
    }
    journal = Journal(file: file)
  }

  func key<Value: Sendable>(
    named name: String, as type: Value.Type, options: StrategyOptions
  ) throws -> any SharedKey<Value> {
    guard type is any Codable.Type else {
      throw TetherError.unsupportedType("\(type)", key: name, kind: Self.kind)
    }
    return JournalKey<Value>(name: name, journal: journal)
  }
}

/// One journal file; appends are serialised so lines never interleave.
final class Journal: Sendable {
  let file: URL
  private let appending = Mutex(())

  init(file: URL) { self.file = file }

  /// The last value journaled under `name`, as JSON.
  func last(_ name: String) throws -> Data? {
    guard FileManager.default.fileExists(atPath: file.path) else { return nil }
    let tag = try Self.tag(name)
    let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n")
    guard let line = lines.last(where: { $0.hasPrefix(tag) }) else { return nil }
    return Data(line.dropFirst(tag.count).utf8)
  }

  /// Appends `json` as the newest value of `name`.
  func append(_ name: String, json: Data) throws {
    let line = Data(try Self.tag(name).utf8) + json + Data("\n".utf8)
    try appending.withLock { _ in
      if !FileManager.default.fileExists(atPath: file.path) {
        try Data().write(to: file)
      }
      let handle = try FileHandle(forWritingTo: file)
      let written = Result {
        try handle.seekToEnd()
        try handle.write(contentsOf: line)
      }
      try handle.close()
      try written.get()
    }
  }

  private static func tag(_ name: String) throws -> String {
    String(decoding: try JSONEncoder().encode(name), as: UTF8.self) + "\t"
  }
}

/// A key stored in a ``Journal``.
struct JournalKey<Value: Sendable>: SharedKey, CustomStringConvertible {
  let name: String
  let journal: Journal

  var id: [String] { [journal.file.path, name] }
  var description: String { ".journal(\(String(reflecting: name)), \(journal.file.path))" }

  func load(context: LoadContext<Value>, continuation: LoadContinuation<Value>) {
    continuation.resume(
      with: Result {
        guard let json = try journal.last(name) else { return nil }
        guard let type = Value.self as? any Decodable.Type,
          let value = try JSONDecoder().decode(type, from: json) as? Value
        else { throw TetherError.unsupportedType("\(Value.self)", key: name, kind: "journal") }
        return value
      })
  }

  /// This example does not watch the file: changes made elsewhere show up on the next load.
  func subscribe(
    context: LoadContext<Value>, subscriber: SharedSubscriber<Value>
  ) -> SharedSubscription {
    SharedSubscription {}
  }

  func save(_ value: Value, context: SaveContext, continuation: SaveContinuation) {
    continuation.resume(
      with: Result {
        guard let encodable = value as? any Encodable else {
          throw TetherError.unsupportedType("\(Value.self)", key: name, kind: "journal")
        }
        try journal.append(name, json: JSONEncoder().encode(encodable))
      })
  }
}
