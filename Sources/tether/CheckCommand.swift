import ArgumentParser
import Tether

/// `tether check`: every error of a config, or a one-line summary.
struct CheckCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "check", abstract: "Validate a config; exit 1 listing every error as file:line.")

  @OptionGroup var options: ConfigOptions

  func run() throws {
    let errors = StrategyRegistry.diagnose(
      configuration: options.configuration, strategies: ConfigOptions.strategies)
    guard errors.isEmpty else {
      for error in errors { printError("\(error)") }
      throw ExitCode.failure
    }
    let registry = try options.registry()
    let kinds = Set(registry.instances.values.map(\.kind)).sorted()
    print(
      "\(options.config): OK: \(registry.mapping.rules.count) key mappings, "
        + "\(registry.instances.count) strategies (\(kinds.joined(separator: ", ")))")
  }
}
