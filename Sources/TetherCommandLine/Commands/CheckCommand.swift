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
      declarations: setup.declarations)
    // Strict even in the plain tool, which tolerates kinds it lacks elsewhere: a misspelt kind
    // looks the same as an app's own, and a check that passed it would be no check.
    guard errors.isEmpty else {
      for error in errors { Output.error("\(error)") }
      if setup.isPlain, errors.contains(where: { "\($0)".contains("unknown strategy") }) {
        Output.error(
          "note: a strategy of an app's own is checked by that app's settings command, which has it"
        )
      }
      throw ExitCode.failure
    }
    try await options.withSession { session in
      let registry = session.registry
      let kinds = Set(registry.instances.values.map(\.kind)).sorted()
      let declared = setup.declarations.isEmpty ? "" : ", \(setup.declarations.count) declared keys"
      Output.line(
        "\(configuration.origin): OK: \(registry.mapping.rules.count) key mappings, "
          + "\(registry.instances.count) strategies (\(kinds.joined(separator: ", ")))\(declared)")
    }
  }
}
