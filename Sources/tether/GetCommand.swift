import ArgumentParser
import Foundation
import Tether
import TetherDefaults
import TetherFiles
import TetherWatcher

/// `tether get KEY`: the stored representation of a key's value.
struct GetCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "get",
    abstract: "Print a key's stored value: JSON for files, the INI literal for defaults.")

  @OptionGroup var options: ConfigOptions
  @Argument(help: "The key's name.") var key: String

  func run() throws {
    let registry = try options.registry()
    switch try KeyLocation(of: key, in: registry) {
    case .file(let url):
      switch FileContent.read(url.path) {
      case .missing:
        print("\(key): no value (\(url.path) does not exist)")
      case .unreadable(let error):
        printError("\(url.path): \(error)")
        throw ExitCode.failure
      case .data(let data):
        print(String(decoding: data, as: UTF8.self))
      }
    case .defaults(let store, let name):
      if let entry = try DefaultsFile.entry(name, in: store.path) {
        print(INIString.encode(entry.value))
      } else if let registration = store.registration,
        let entry = try DefaultsFile.entry(name, in: registration.path)
      {
        print("\(INIString.encode(entry.value))  (registered default, from \(registration.path))")
      } else {
        print("\(key): no value (not set in \(store.file.path))")
      }
    case .memory:
      print("\(key): kept in memory by the process that holds it; nothing is stored")
    case .other(let kind):
      printError("\(key): the \(kind) strategy is not one tether can read")
      throw ExitCode.failure
    }
  }
}
