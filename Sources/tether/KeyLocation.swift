import Foundation
import Tether
import TetherDefaults
import TetherFileStorage
import TetherInMemory

/// Where a key's value lives, as the config says.
enum KeyLocation {
  case file(URL)
  case defaults(DefaultsStore, name: String)
  case memory
  case other(kind: String)

  /// The location of `name` in `registry`; throws the registry's error for an unmapped name.
  init(of name: String, in registry: StrategyRegistry) throws {
    guard let rule = registry.mapping.rule(for: name),
      let instance = registry.instances[rule.strategy]
    else { throw TetherError.unmappedKey(name, origin: registry.origin) }
    let options = registry.keyOptions[name] ?? StrategyOptions()
    switch instance.strategy {
    case let file as FileStorageStrategy:
      self = .file(try file.location(of: name, options: options))
    case let defaults as DefaultsStrategy:
      self = .defaults(defaults.store, name: name)
    case is InMemoryStrategy:
      self = .memory
    default:
      self = .other(kind: instance.kind)
    }
  }

  /// A one-line description: the file, or the defaults file with its section and key.
  var description: String {
    switch self {
    case .file(let url):
      return url.path
    case .defaults(let store, let name):
      let dot = name.lastIndex(of: ".")
      let key = dot.map { String(name[name.index(after: $0)...]) } ?? name
      let section = dot.map { "[\(name[..<$0])] " } ?? ""
      return "\(store.file.path) \(section)\(key)"
    case .memory:
      return "in memory (in the process that holds it)"
    case .other(let kind):
      return "kept by the \(kind) strategy"
    }
  }
}
