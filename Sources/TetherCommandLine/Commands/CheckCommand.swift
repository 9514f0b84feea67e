import ArgumentParser
import Tether

/// `check`: every error of a config (and of the app's key declarations against it), or a
/// one-line summary.
struct CheckCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "check",
    abstract: "Validate the config; exit 1 listing every error as file:line.")

  @OptionGroup var options: ConfigOptions

  func run() async throws {
    let setup = ToolSetup.current
    let configuration = try options.configuration()
    let errors = StrategyRegistry.diagnose(
      configuration: configuration, strategies: setup.strategies,
      declarations: setup.declarations, unknownKinds: setup.isPlain ? .tolerated : .rejected)
    guard errors.isEmpty else {
      for error in errors { Output.error("\(error)") }
      throw ExitCode.failure
    }
    try await options.withSession { session in
      let registry = session.registry
      for foreign in registry.foreignStrategies {
        Output.error(
          "\(configuration.origin):\(foreign.line): note: strategy \"\(foreign.name)\" is of "
            + "kind \(foreign.kind), which this tool does not have: its options and keys are not "
            + "checked here; use your app's own settings command")
      }
      let kinds = Set(registry.instances.values.map(\.kind)).sorted()
      let declared = setup.declarations.isEmpty ? "" : ", \(setup.declarations.count) declared keys"
      Output.line(
        "\(configuration.origin): OK: \(registry.mapping.rules.count) key mappings, "
          + "\(registry.instances.count) strategies (\(kinds.joined(separator: ", ")))\(declared)")
    }
  }
}
