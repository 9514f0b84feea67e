import ArgumentParser
import Tether

/// A loaded config, in a scope of its own: the keys the tool reads and writes.
struct ToolSession {
  let registry: StrategyRegistry
  let setup: ToolSetup

  /// The key `name` as the tool sees it; an invalid or unmapped name ends the command, said.
  func key(_ name: String) throws -> ToolKey {
    do {
      return try ToolKey(name, in: registry, declaration: setup.declaration(of: name))
    } catch {
      throw fail("\(error)")
    }
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
