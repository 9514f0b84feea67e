import ArgumentParser
import Tether

/// A loaded config, in a scope of its own: the keys the tool reads and writes.
struct ToolSession {
  let registry: StrategyRegistry
  let setup: ToolSetup

  /// The key `name` as the tool sees it; an invalid or unmapped name ends the command, said.
  func key(_ name: String) throws -> ToolKey {
    do {
      return try lookUp(name)
    } catch {
      throw fail("\(error)")
    }
  }

  /// The key `name` as the tool sees it; throws why it is not one (an invalid or unmapped
  /// name), for a command that goes on with the other keys.
  func lookUp(_ name: String) throws -> ToolKey {
    try ToolKey(name, in: registry, declaration: setup.declaration(of: name))
  }

  /// Every key the tool can name: the declared ones, then the names `[keys]` maps exactly.
  var keyNames: [String] {
    let declared = setup.declarations.map(\.name)
    let mapped = registry.mapping.rules.map(\.pattern).filter {
      !$0.hasSuffix("*") && !declared.contains($0)
    }
    return declared + mapped
  }
}
