import ArgumentParser
import Foundation
public import Tether

/// The whole `tether` tool as a library: an app's own settings command, with its strategies and
/// its key declarations.
///
/// ```swift
/// let settings = TetherCommand(
///   name: "notes settings", app: "notes",
///   strategies: [FileStorageStrategy.self, DefaultsStrategy.self, EnvDirStrategy.self],
///   keys: NotesKeys.all)
/// await settings.main(Array(CommandLine.arguments.dropFirst(2)))   // after "settings"
/// ```
///
/// Its commands — `check`, `list`, `get`, `set`, `reset`, `describe`, `watch`, `export`,
/// `import`, `demo` — read and write through the library: the keys the strategies make, `save`
/// and `reset`, so locks, atomic writes, backups of corrupt files and name checks hold for them
/// as for the app, and an app's own strategies work unchanged. With declarations, values are
/// typed: `set launches abc` is refused, naming `Int`, and nothing is written. Without them (the
/// `tether` executable), a key is read and written in its stored form (JSON for files, the INI
/// literal for defaults), and a key of a kind the tool does not have is reported as such while
/// every other key works.
///
/// Exit codes: 0 success; 1 an error the message names (a config error, a value that does not
/// fit, a store that cannot be read or written, an unknown key); 64 a usage error (unknown
/// command or option).
public struct TetherCommand: Sendable {
  /// The command as its user types it: `tether`, `notes settings`.
  public let name: String
  /// The folder name under `$XDG_CONFIG_HOME` where the config may be found.
  public let app: String
  /// What `--version` prints.
  public let version: String
  /// The strategies the config may name.
  public let strategies: [any PersistenceStrategy.Type]
  /// The app's keys: their types, defaults and summaries.
  public let keys: [KeyDeclaration]

  /// A settings command named `name` (as usage lines show it) for the app `app`.
  public init(
    name: String = "tether", app: String? = nil, version: String = TetherSystem.version,
    strategies: [any PersistenceStrategy.Type], keys: [KeyDeclaration] = []
  ) {
    self.name = name
    self.app = app ?? String(name.split(separator: " ").first ?? "tether")
    self.version = version
    self.strategies = strategies
    self.keys = keys
  }

  /// Runs the command with `arguments` (without the program's name) and exits with its status.
  public func main(
    _ arguments: [String] = Array(CommandLine.arguments.dropFirst())
  ) async
    -> Never
  {
    do {
      try await run(arguments)
      exit(0)
    } catch let code as ExitCode {
      exit(code.rawValue)
    } catch {
      // `run` says every error itself and throws only exit codes.
      exit(ExitCode.failure.rawValue)
    }
  }

  /// Runs the command with `arguments`; throws an `ExitCode` when it did not succeed, having
  /// said why on standard error (help and `--version` print to standard output and return).
  ///
  /// For a `settings` subcommand of an app's own swift-argument-parser command, hand it the
  /// arguments captured with `@Argument(parsing: .captureForPassthrough)`.
  public func run(_ arguments: [String]) async throws {
    try await ToolSetup.$current.withValue(ToolSetup(self)) {
      do {
        var command = try RootCommand.parseAsRoot(arguments)
        if var command = command as? any AsyncParsableCommand {
          try await command.run()
        } else {
          try command.run()
        }
      } catch {
        let code = RootCommand.exitCode(for: error)
        let message = RootCommand.fullMessage(for: error)
        if code == .success {
          if !message.isEmpty { Output.write(message + "\n") }
          return
        }
        if !message.isEmpty { Output.error(message) }
        throw code
      }
    }
  }
}
