import ArgumentParser

/// `tether`: check a config, see where each key lives, read, write and watch stored values, and
/// run the demo.
@main
struct TetherCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "tether",
    abstract: "Inspect and edit the values a Tether config maps to memory, files and defaults.",
    subcommands: [
      CheckCommand.self, ListCommand.self, GetCommand.self, SetCommand.self, WatchCommand.self,
      DemoCommand.self,
    ])
}
