import Foundation
import Tether

/// A key as the tool sees it: where the config maps it, and how the tool reaches its value —
/// as its declared type, through `Shared` (``ToolKey/Access/declared(_:)``), or undeclared, in
/// the stored form its strategy shows (``ToolKey/Access/storedText(_:)``).
struct ToolKey {
  let name: String
  let declaration: KeyDeclaration?
  /// The strategy name `[keys]` maps the key to (`defaults`, or a named instance).
  let strategy: String
  /// Its kind (`file`, `envdir`).
  let kind: String
  /// The `[keys]` line that maps the key.
  let mappedAt: String
  let access: Access
  let options: StrategyOptions
  /// The strategy's stored text form, when it has one: where a value lives and comes from.
  let textForm: (any StoredTextStrategy)?

  enum Access {
    /// A declared key: read and written as its type through the library.
    case declared(any DeclaredKey)
    /// An undeclared key of a strategy with a stored text form.
    case storedText(any StoredTextStrategy)
    /// An undeclared key of a strategy with no text form the tool can show.
    case opaque
    /// A key mapped to a kind this program does not have.
    case foreign
  }

  /// The key `name`; `checkingName: false` for a pattern's placeholder (`session.<name>`),
  /// whose ``location`` alone is asked.
  init(
    _ name: String, in registry: StrategyRegistry, declaration: KeyDeclaration?,
    checkingName: Bool = true
  ) throws {
    if checkingName { try KeyName.validate(name) }
    guard let rule = registry.mapping.rule(for: name) else {
      throw TetherError.unmappedKey(name, origin: registry.origin)
    }
    self.name = name
    self.declaration = declaration
    self.strategy = rule.strategy
    self.mappedAt = "\(registry.origin):\(rule.line)"
    self.options = registry.keyOptions[name] ?? StrategyOptions()
    if let instance = registry.instances[rule.strategy] {
      kind = instance.kind
      textForm = instance.strategy as? any StoredTextStrategy
      if let declaration {
        access = .declared(declaration.typed)
      } else if let textForm {
        access = .storedText(textForm)
      } else {
        access = .opaque
      }
    } else {
      kind = registry.foreignKind(of: name) ?? rule.strategy
      textForm = nil
      access = .foreign
    }
  }

  /// Where the value lives, in words.
  var location: String {
    if case .foreign = access { return "kept by \(kind), a strategy this program does not have" }
    guard let textForm else { return "kept by the \(kind) strategy" }
    do {
      return try textForm.storageLocation(of: name, options: options)
    } catch {
      return "\(error)"
    }
  }

  /// Why the tool cannot reach the value, said for `what` ("read", "write").
  func unreachable(_ what: String) -> String {
    switch access {
    case .foreign:
      return "\(name): mapped to \(kind) (\(mappedAt)), a strategy this tool does not have: "
        + "use your app's own settings command"
    default:
      return "\(name): the \(kind) strategy has no text form this tool can \(what); declare "
        + "the key (KeyDeclaration) in your app's settings command to \(what) it as its type"
    }
  }
}
