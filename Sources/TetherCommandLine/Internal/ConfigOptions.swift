import ArgumentParser
import Foundation
import Tether

/// The options every command that reads a config shares: which config, and JSON output.
struct ConfigOptions: ParsableArguments {
  @Option(
    name: .long,
    help: ArgumentHelp(
      "The config file.",
      discussion: "Else $TETHER_CONFIG, else ./Config/tether.conf, else "
        + "$XDG_CONFIG_HOME/<app>/tether.conf."),
    completion: .file(extensions: ["conf"]))
  var config: String?

  /// The config the command reads: `--config`, else the search every app can make
  /// (``TetherConfiguration/discover(app:environment:currentDirectory:)``).
  func configuration() throws -> TetherConfiguration {
    if let config { return .file(config) }
    do {
      return try TetherConfiguration.discover(app: ToolSetup.current.command.app)
    } catch {
      throw fail("\(error)")
    }
  }

  /// Runs `body` with the config loaded into a scope of its own, as an app's bootstrap would
  /// load it (with the app's declarations, checked), and its writes flushed before returning.
  func withSession<R>(_ body: (ToolSession) async throws -> R) async throws -> R {
    let setup = ToolSetup.current
    let configuration = try configuration()
    do {
      return try await TetherSystem.withRegistry({
        try StrategyRegistry(
          configuration: configuration, strategies: setup.strategies,
          declarations: setup.declarations,
          unknownKinds: setup.isPlain ? .tolerated : .rejected)
      }) {
        guard let registry = TetherScope.current.registry else {
          throw fail("the config was not loaded")
        }
        return try await body(ToolSession(registry: registry, setup: setup))
      }
    } catch let error as ExitCode {
      throw error
    } catch let error as TetherError {
      // The config's errors, each on a line of its own; a command's own failures are said
      // where they happen and end as exit codes.
      throw fail("\(error)")
    }
  }
}

/// `--json` for commands that print values.
struct OutputOptions: ParsableArguments {
  @Flag(name: .long, help: "Print JSON: one object per line.")
  var json = false
}

/// Says `message` on standard error; the error that ends the command with exit status 1.
func fail(_ message: String) -> ExitCode {
  Output.error(message)
  return .failure
}

/// Completes key names: the declared ones and the names the config maps exactly.
let keyNameCompletion = CompletionKind.custom { words, _, _ in
  let setup = ToolSetup.current
  let configIndex = words.firstIndex(of: "--config")
  let configuration: TetherConfiguration?
  if let configIndex, words.indices.contains(configIndex + 1) {
    configuration = .file(words[configIndex + 1])
  } else {
    do {
      configuration = try TetherConfiguration.discover(app: setup.command.app)
    } catch {
      configuration = nil
    }
  }
  // Completion offers what it can: a config that does not load adds no names.
  guard let configuration else { return setup.declarations.map(\.name).sorted() }
  do {
    let registry = try StrategyRegistry(
      configuration: configuration, strategies: setup.strategies, unknownKinds: .tolerated)
    return ToolSession(registry: registry, setup: setup).keyNames.sorted()
  } catch {
    return setup.declarations.map(\.name).sorted()
  }
}
