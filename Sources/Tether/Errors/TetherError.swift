public import Foundation

/// Every error Tether itself reports.
///
/// Each case renders a message a user can act on. Where the error comes from a file, the message
/// starts with `file:line`, the way compilers report errors, so editors and terminals can jump to
/// it:
///
/// ```swift
/// do {
///   try TetherSystem.bootstrap(configuration: .file("Config/tether.conf"), strategies: [...])
/// } catch {
///   print(error)  // Config/tether.conf:7: unknown strategy "fiel"; registered: defaults, file, memory
/// }
/// ```
public enum TetherError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
  /// `TetherSystem.bootstrap` was called a second time in this process.
  case alreadyBootstrapped
  /// A registered key was used before `TetherSystem.bootstrap` ran.
  case notBootstrapped(key: String)
  /// The configuration maps no strategy to this key name and has no `*` fallback.
  case unmappedKey(String, origin: String)
  /// The strategy `kind` cannot store values of the given type for `key`.
  case unsupportedType(String, key: String, kind: String)
  /// The configuration text itself is malformed; `location` is `file:line`.
  case invalidConfiguration(message: String, location: String)
  /// A strategy option has a value that cannot be used; `location` is `file:line`.
  case invalidOption(name: String, message: String, location: String)
  /// A stored value cannot be read back as the key's type; `location` is `file:line`.
  case invalidValue(key: String, message: String, location: String)
  /// `Shared(require:)` found no stored value for the key.
  case noValue(key: String)
  /// A change of `key` was not written: the store at `location` changed the key first (another
  /// process or an editor), and its value won. The holders now show that value.
  case conflict(key: String, location: String)
  /// A key name outside the grammar every strategy accepts (see ``KeyName``): `reason` says
  /// what is wrong with it.
  case invalidKeyName(String, reason: String)
  /// A file Tether was asked to use cannot serve: `reason` says why (a folder, a FIFO, a
  /// symbolic link where none may be, missing).
  case unusableFile(String, reason: String)
  /// Writing the key's value failed; `reason` is the failure, naming the file.
  case notSaved(key: String, reason: String)
  /// `Shared.transaction` was called on a key whose strategy `kind` cannot read, change and
  /// write it under a cross-process lock (it does not conform to `TransactionalKey`).
  case notTransactional(key: String, kind: String)
  /// `Shared.reset` was called on a key whose strategy `kind` cannot remove a stored value (it
  /// does not conform to `ResettableKey`); `kind` is `projection` for part of a stored value
  /// (`$settings.theme`) and `value` for a value with no key.
  case notResettable(key: String, kind: String)
  /// The registered name `key` is used as `type` while it already is `existing` (declared, or
  /// used first that way): one name has one value type, never two silent values.
  case typeConflict(key: String, type: String, existing: String)
  /// Several errors found at once (a config and its key declarations checked at startup), in
  /// file order.
  case multiple([TetherError])
  /// The registered name `key` is mapped to a strategy of `kind`, which this program does not
  /// have (the `tether` tool reading an app's config); `location` is the `[keys]` line that
  /// maps it.
  case foreignStrategy(key: String, kind: String, location: String)
  /// No config file was found in any of the places `tried`, each in words.
  case configurationNotFound(tried: [String])
  /// A change of `key` cannot be written: its strategy `kind` only reads (environment
  /// variables, say). The change stays in this process's memory; `save()`, `transaction` and
  /// `reset()` throw this.
  case readOnly(key: String, kind: String)
  /// The server that stores `key` (`store`, its address without the password) cannot be
  /// reached, for `reason`: the value shown may be out of date, and a change is kept and written
  /// once the connection is back.
  case unreachable(key: String, store: String, reason: String)
  /// The store of `key` (`store`, its address without the password) was closed by
  /// ``TetherSystem/shutdown()``: the key is no longer read or written, the value shown stays
  /// as it was, and a change stays in this process's memory. `save()`, `transaction` and
  /// `reset()` throw this.
  case shutDown(key: String, store: String)

  /// The message, prefixed with `file:line` when the error has a location.
  public var description: String {
    switch self {
    case .alreadyBootstrapped:
      return "TetherSystem.bootstrap was already called in this process; it may run only once "
        + "(tests use TetherSystem.withBootstrap for a scoped registry)"
    case .notBootstrapped(let key):
      return "key \"\(key)\" was used before TetherSystem.bootstrap(configuration:strategies:); "
        + "bootstrap at startup, before the first @Shared is created"
    case .unmappedKey(let key, let origin):
      return "\(origin): no entry in [keys] maps \"\(key)\" and there is no \"*\" fallback; "
        + "add \"\(key) = <strategy>\" under [keys]"
    case .unsupportedType(let type, let key, let kind):
      return "key \"\(key)\": strategy \"\(kind)\" cannot store values of type \(type)"
    case .invalidConfiguration(let message, let location):
      return "\(location): \(message)"
    case .invalidOption(let name, let message, let location):
      return "\(location): option \"\(name)\": \(message)"
    case .invalidValue(let key, let message, let location):
      return "\(location): key \"\(key)\": \(message)"
    case .noValue(let key):
      return "no value is stored for \(key)"
    case .conflict(let key, let location):
      return "\(location): key \"\(key)\" changed there before this process's change of it "
        + "was written; the stored value wins and the change was dropped"
    case .invalidKeyName(let name, let reason):
      return "invalid key name \(KeyName.quoted(name)): \(reason)"
    case .unusableFile(let path, let reason):
      return "\(path): \(reason)"
    case .notSaved(let key, let reason):
      return "key \"\(key)\" was not saved: \(reason)"
    case .notTransactional(let key, let kind):
      return "key \"\(key)\": strategy \"\(kind)\" cannot run a transaction (it has no "
        + "cross-process lock); use withLock, whose last writer wins across processes"
    case .notResettable(let key, "projection"):
      return "\(key) cannot be reset: it is part of a stored value; reset that value"
    case .notResettable(let key, "value"):
      return "\(key) cannot be reset: it has no key, so nothing is stored"
    case .notResettable(let key, let kind):
      return "key \"\(key)\": strategy \"\(kind)\" cannot remove a stored value (its keys "
        + "do not conform to ResettableKey)"
    case .typeConflict(let key, let type, let existing):
      return "key \"\(key)\" is used as \(type), but it is \(existing); a name has one value "
        + "type (two would be two values that never meet)"
    case .multiple(let errors):
      return errors.map(\.description).joined(separator: "\n")
    case .foreignStrategy(let key, let kind, let location):
      return "key \"\(key)\" is mapped to \(kind) (\(location)), a strategy this program "
        + "does not have"
    case .configurationNotFound(let tried):
      return "no config file found; looked for " + tried.joined(separator: ", then ")
    case .readOnly(let key, let kind):
      return "key \"\(key)\": strategy \"\(kind)\" only reads, so changes stay in this "
        + "process's memory; read it with @SharedReader, or map it to a strategy that writes"
    case .unreachable(let key, let store, let reason):
      return "key \"\(key)\": \(store) cannot be reached (\(reason)); the value shown may be "
        + "out of date, and changes are kept and written once it is back"
    case .shutDown(let key, let store):
      return "key \"\(key)\": \(store) was shut down (TetherSystem.shutdown()); the key is no "
        + "longer read or written, and changes stay in this process's memory"
    }
  }

  /// The key the error is about, when it names one.
  package var key: String? {
    switch self {
    case .notBootstrapped(let key), .unmappedKey(let key, _), .unsupportedType(_, let key, _),
      .invalidValue(let key, _, _), .noValue(let key), .invalidKeyName(let key, _),
      .notSaved(let key, _), .conflict(let key, _), .notTransactional(let key, _),
      .notResettable(let key, _), .typeConflict(let key, _, _), .foreignStrategy(let key, _, _),
      .readOnly(let key, _), .unreachable(let key, _, _), .shutDown(let key, _):
      return key
    case .alreadyBootstrapped, .invalidConfiguration, .invalidOption, .unusableFile, .multiple,
      .configurationNotFound:
      return nil
    }
  }

  /// The same text as ``description``.
  public var errorDescription: String? { description }
}
