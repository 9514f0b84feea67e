public import Foundation
public import Tether

/// The `file` strategy: each registered key is a JSON file in the strategy's directory.
///
/// ```ini
/// [keys]
/// favoriteFacts = file
///
/// [strategy.file]
/// # default: $XDG_DATA_HOME/<executable name>
/// directory  = $XDG_DATA_HOME/facts
/// # default: 1s
/// throttle   = 1s
/// # or durable: also fsync the folder
/// durability = atomic
/// # default: false; true writes pretty-printed JSON, sorted keys, for files people edit
/// pretty     = true
/// # default: seconds-since-2001; iso8601 writes dates as text
/// dates      = iso8601
///
/// [key.favoriteFacts]
/// # default: NAME.json, inside the directory
/// path   = favorite-facts.json
/// # a key's own pretty and dates win over its strategy's
/// pretty = false
/// ```
///
/// Values must be `Codable`; others fail with `TetherError.unsupportedType` when first used.
/// See ``FileStorageCoding`` for what `pretty` and `dates` write, and what happens to files
/// written before `dates` changed.
public struct FileStorageStrategy: PersistenceStrategy {
  /// `file`.
  public static let kind = "file"
  /// Keys read `path`, `pretty` and `dates`.
  public static var keyOptionNames: Set<String>? { ["path", "pretty", "dates"] }

  /// Where keys' files live.
  public let directory: URL
  /// The throttle window and durability of every key.
  public let settings: FileStorageSettings
  /// How keys write their JSON, unless a key's own options say otherwise.
  public let coding: FileStorageCoding
  /// The coders of ``coding``, made once for every key that keeps it.
  private let coders: JSONCoders

  /// Reads `directory`, `throttle`, `durability`, `pretty` and `dates`.
  public init(options: StrategyOptions) throws {
    if let directory = try options.path("directory") {
      self.directory = directory
    } else {
      let data = try Self.defaultDataHome(options)
      self.directory = data.appending(path: ProcessInfo.processInfo.processName)
    }
    let durability: FileStorageSettings.Durability
    switch options["durability"] {
    case nil, "atomic": durability = .atomic
    case "durable": durability = .durable
    case let other?:
      throw options.invalid("durability", "expected atomic or durable, found \"\(other)\"")
    }
    settings = FileStorageSettings(
      throttle: try options.duration("throttle") ?? .seconds(1), durability: durability)
    coding = try FileStorageCoding.default.overridden(by: options)
    coders = coding.coders
  }

  /// `NAME.json` in the directory, or the key's `path`, written with the strategy's coding
  /// or the key's own `pretty` and `dates`.
  public func key<Value: Sendable>(
    named name: String, as type: Value.Type, options: StrategyOptions
  ) throws -> any SharedKey<Value> {
    guard type is any Codable.Type else {
      throw TetherError.unsupportedType("\(type)", key: name, kind: Self.kind)
    }
    let url = try location(of: name, options: options)
    let keyCoding = try coding.overridden(by: options)
    let coders = keyCoding == coding ? coders : keyCoding.coders
    // A registered key's file is one of many in the directory: what cannot be encoded or
    // decoded is said of the key, by name, and of its file.
    let path = url.path
    return FileStorageKey<Value>(
      url: url, settings: settings,
      encode: { value in
        do {
          return try JSONCoding.encode(value, with: coders)
        } catch {
          throw TetherError.invalidValue(
            key: name, message: "cannot be written as JSON: \(CodingErrors.describe(error))",
            location: path)
        }
      },
      decode: { data in
        do {
          return try JSONCoding.decode(data, with: coders)
        } catch {
          throw TetherError.invalidValue(
            key: name, message: "cannot be read as \(Value.self): \(CodingErrors.describe(error))",
            location: path)
        }
      })
  }

  /// The file that stores `name`: its `path` option inside the directory, or `NAME.json`.
  ///
  /// Throws `TetherError.invalidKeyName` for a name outside `KeyName`'s grammar: every key
  /// and every stored-text call finds its file here, and no name may lead out of the directory.
  package func location(of name: String, options: StrategyOptions) throws -> URL {
    try KeyName.validate(name)
    return try describedLocation(of: name, options: options)
  }

  /// The file `name` would be stored in, the name unchecked: for showing where a pattern's
  /// keys live (`session.<name>.json`), never for opening.
  package func describedLocation(of name: String, options: StrategyOptions) throws -> URL {
    try options.path("path", relativeTo: directory) ?? directory.appending(path: "\(name).json")
  }

  private static func defaultDataHome(_ options: StrategyOptions) throws -> URL {
    do {
      return URL(filePath: try PathExpansion.process.xdg("XDG_DATA_HOME"))
    } catch {
      throw options.invalid("directory", "is not set and \(error.message)")
    }
  }
}

/// JSON for values whose `Codable` conformance is known only at run time.
enum JSONCoding {
  static func encode<Value: Sendable>(_ value: Value, with coders: JSONCoders) throws -> Data {
    guard let encodable = value as? any Encodable else {
      throw EncodingError.invalidValue(
        value, .init(codingPath: [], debugDescription: "\(Value.self) is not Encodable"))
    }
    var data = try coders.encoder.encode(encodable)
    if coders.finalNewline { data.append(UInt8(ascii: "\n")) }
    return data
  }

  static func decode<Value: Sendable>(_ data: Data, with coders: JSONCoders) throws -> Value {
    guard let type = Value.self as? any Decodable.Type,
      let value = try coders.decoder.decode(type, from: data) as? Value
    else {
      throw DecodingError.typeMismatch(
        Value.self, .init(codingPath: [], debugDescription: "\(Value.self) is not Decodable"))
    }
    return value
  }
}
