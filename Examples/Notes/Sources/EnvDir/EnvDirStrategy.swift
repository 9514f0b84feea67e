public import Foundation
public import Tether

/// A folder of one-value files, like daemontools' `envdir`: the key `NAME` is the file
/// `DIRECTORY/NAME`, which holds the value as text followed by a newline.
///
/// ```ini
/// [keys]
/// motd = envdir
///
/// [strategy.envdir]
/// directory = $XDG_CONFIG_HOME/notes/env
/// ```
///
/// `echo "Hello." > ~/.config/notes/env/motd` sets `motd` by hand; `cat` reads it. Values are
/// any `LosslessStringConvertible & Codable` type — `String`, `Int`, `Bool`, `Double`… — written
/// as their `description` and parsed back with `init?(_:)`; other types throw
/// `TetherError.unsupportedType` when the key is resolved.
///
/// This strategy is an example an app copies: the whole of it is this file and
/// ``EnvDirKey``. Register it beside Tether's own strategies, and it is checked by the same
/// suite (`StrategyConformance.run(EnvDirStrategy.self, options: "directory = …")`).
public struct EnvDirStrategy: PersistenceStrategy {
  /// The name a config file uses under `[keys]` and in `[strategy.envdir]`.
  public static let kind = "envdir"

  /// It reads no per-key options (`[key.NAME]`), so a misspelt one is reported when the
  /// config loads.
  public static var keyOptionNames: Set<String>? { [] }

  /// The folder holding one file per key.
  public let directory: URL

  /// Reads the one option, `directory` (required): a path, which may start with `~`, `$HOME` or
  /// `$XDG_*_HOME` and is relative to the config file's folder otherwise.
  public init(options: StrategyOptions) throws {
    guard let directory = try options.path("directory") else {
      throw TetherError.invalidConfiguration(
        message: "strategy \(Self.kind) needs the folder of its files: directory = PATH",
        location: options.origin)
    }
    self.directory = directory
  }

  /// The key storing `name` in the file `directory/name`.
  ///
  /// Throws `TetherError.invalidKeyName` for a name that could lead out of the folder (`../x`,
  /// `a/b`) or is not one line, and `TetherError.unsupportedType` for a value type that is not
  /// `LosslessStringConvertible & Codable`.
  public func key<Value: Sendable>(
    named name: String, as type: Value.Type, options: StrategyOptions
  ) throws -> any SharedKey<Value> {
    // The registry checks names too, but a strategy must not trust its caller: a test or a
    // tool may call this directly.
    try KeyName.validate(name)
    guard Value.self is any (LosslessStringConvertible & Codable).Type else {
      throw TetherError.unsupportedType("\(Value.self)", key: name, kind: Self.kind)
    }
    return EnvDirKey<Value>(name: name, directory: directory)
  }
}
