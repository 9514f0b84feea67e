import ArgumentParser
import Foundation
import Tether
import TetherDefaults
import TetherFileStorage
import TetherInMemory

/// The `--config` option every command shares, and the strategies the tool knows.
struct ConfigOptions: ParsableArguments {
  @Option(name: .long, help: "The config file.")
  var config = "Config/tether.conf"

  /// The strategies `tether` registers: Tether's own.
  static let strategies: [any PersistenceStrategy.Type] = [
    InMemoryStrategy.self, FileStorageStrategy.self, DefaultsStrategy.self,
  ]

  var configuration: TetherConfiguration { .file(config) }

  /// The loaded config, or the tool's exit with its errors.
  func registry() throws -> StrategyRegistry {
    do {
      return try StrategyRegistry(configuration: configuration, strategies: Self.strategies)
    } catch {
      printError("\(error)")
      throw ExitCode.failure
    }
  }
}

/// Writes `text` to standard output at once (unbuffered: other programs read the demo live).
func write(_ text: String) {
  FileHandle.standardOutput.write(Data(text.utf8))
}

/// Writes a line to standard error.
func printError(_ message: String) {
  var standardError = StandardError()
  print(message, to: &standardError)
}

private struct StandardError: TextOutputStream {
  mutating func write(_ string: String) {
    FileHandle.standardError.write(Data(string.utf8))
  }
}
