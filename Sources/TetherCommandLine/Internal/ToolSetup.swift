import Tether

/// The command being run: what ``TetherCommand`` was made with, for the subcommands, which
/// swift-argument-parser makes from their types alone.
struct ToolSetup: Sendable {
  @TaskLocal static var current = ToolSetup(
    TetherCommand(strategies: []))

  let command: TetherCommand

  init(_ command: TetherCommand) {
    self.command = command
  }

  var name: String { command.name }
  var strategies: [any PersistenceStrategy.Type] { command.strategies }
  var declarations: [KeyDeclaration] { command.keys }
  /// The plain tool knows no app's keys, and so no app's strategies: a key of a kind it does
  /// not have is reported, not a failure of the whole config.
  var isPlain: Bool { command.keys.isEmpty }

  /// The declaration of `name`, if the app declared it.
  func declaration(of name: String) -> KeyDeclaration? {
    declarations.first { $0.name == name }
  }
}
