import ArgumentParser
import Tether

/// `tether get KEY`: the stored representation of a key's value.
struct GetCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "get",
    abstract: "Print a key's stored value: JSON for files, the INI literal for defaults.")

  @OptionGroup var options: ConfigOptions
  @Argument(help: "The key's name.") var key: String

  func run() throws {
    let mapped = try MappedKey(key, in: try options.registry())
    guard let strategy = mapped.strategy else {
      printError("\(key): the \(mapped.kind) strategy is not one tether can read")
      throw ExitCode.failure
    }
    do {
      switch try strategy.storedText(of: key, options: mapped.options) {
      case .text(let text, let note):
        print(note.map { "\(text)  (\($0))" } ?? text)
      case .absent(let reason):
        print("\(key): \(reason)")
      }
    } catch let error as StoredTextError {
      printError("\(error)")
      throw ExitCode.failure
    }
  }
}
