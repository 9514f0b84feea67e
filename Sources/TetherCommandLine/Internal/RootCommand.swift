import ArgumentParser

/// The command line a ``TetherCommand`` parses: its name and version are the app's.
struct RootCommand: AsyncParsableCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      commandName: ToolSetup.current.name,
      abstract: "Check the config, and read, write, reset and watch the values it maps.",
      discussion: """
        Exit codes: 0 success; 1 an error the message names (config, value, store, unknown \
        key); 64 a usage error.
        """,
      version: ToolSetup.current.command.version,
      subcommands: [
        CheckCommand.self, ListCommand.self, GetCommand.self, SetCommand.self, ResetCommand.self,
        DescribeCommand.self, WatchCommand.self, ExportCommand.self, ImportCommand.self,
        DemoCommand.self,
      ])
  }
}
