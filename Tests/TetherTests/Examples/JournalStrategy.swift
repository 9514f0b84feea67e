import Foundation
import Tether

/// An app's own strategy: every save is appended to a journal file, one line per save, and a
/// key's value is the last one journaled for it. Nothing is overwritten, so the journal doubles
/// as an audit trail of every change.
///
///     [keys]
///     audit.* = journal
///
///     [strategy.journal]
///     # relative to the config file's folder
///     file = audit.journal
///
/// Values must be `Codable`; others fail with `TetherError.unsupportedType` when first used.
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
    journal = try Journal(file: file)
  }

  func key<Value: Sendable>(
    named name: String, as type: Value.Type, options: StrategyOptions
  ) throws -> any SharedKey<Value> {
    guard type is any Codable.Type else {
      throw TetherError.unsupportedType("\(type)", key: name, kind: Self.kind)
    }
    return JournalKey<Value>(name: name, journal: journal, tag: try Journal.tag(name))
  }
}

/// A key stored in a ``Journal``.
struct JournalKey<Value: Sendable>: SharedKey, CustomStringConvertible {
  let name: String
  let journal: Journal
  /// The start of this key's lines in the journal.
  let tag: Data

  /// The journal and the name: keys of one name in one journal share one reference.
  var id: [String] { [journal.file.path, name] }
  var description: String { ".journal(\(String(reflecting: name)), \(journal.file.path))" }

  /// The last journaled value; with none, the holder's default.
  func load(context: LoadContext<Value>, continuation: LoadContinuation<Value>) {
    continuation.resume(with: Result { try journal.last(tag).map(decode) })
  }

  /// Values other processes journal for this key; never this process's own saves, nor a line
  /// older than one of them.
  func subscribe(
    context: LoadContext<Value>, subscriber: SharedSubscriber<Value>
  ) -> SharedSubscription {
    journal.subscribe(tag) { [journal, tag] read in
      // Decoded before the holders' changes wait.
      let decoded = read.flatMap { line in Result { (line, try decode(line.json)) } }
      // Under the lock the holders' changes (and the saves of them) are made under: a save of
      // theirs is wholly before the check (the line is older, and stays unseen) or wholly after
      // the value is theirs (a change made on it).
      subscriber.give { subscriber in
        switch decoded {
        case .success(let (line, value)):
          if journal.isNewest(line, of: tag) { subscriber.yield(value) }
        case .failure(let error):
          subscriber.yield(throwing: error)
        }
      }
    }
  }

  /// Appends the value, on the caller's thread: a line is cheap to write.
  func save(_ value: Value, context: SaveContext, continuation: SaveContinuation) {
    continuation.resume(with: Result { try journal.append(tag, json: encode(value)) })
  }

  func decode(_ json: Data) throws -> Value {
    guard let type = Value.self as? any Decodable.Type,
      let value = try JSONDecoder().decode(type, from: json) as? Value
    else { throw TetherError.unsupportedType("\(Value.self)", key: name, kind: "journal") }
    return value
  }

  private func encode(_ value: Value) throws -> Data {
    guard let encodable = value as? any Encodable else {
      throw TetherError.unsupportedType("\(Value.self)", key: name, kind: "journal")
    }
    return try JSONEncoder().encode(encodable)
  }
}
