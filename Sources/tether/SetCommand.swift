import ArgumentParser
import Foundation
import Tether
import TetherDefaults
import TetherFiles
import TetherWatcher

/// `tether set KEY VALUE`: validates, then writes atomically through the library's own code.
struct SetCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "set",
    abstract: "Write a key's stored value: JSON for files, an INI literal for defaults.",
    discussion: "The value is checked first; an invalid one leaves the file untouched.")

  @OptionGroup var options: ConfigOptions
  @Argument(help: "The key's name.") var key: String
  @Argument(help: "The value (or use --file).") var value: String?
  @Option(name: .long, help: "Read the value from a file; - reads standard input.")
  var file: String?

  func validate() throws {
    guard (value == nil) != (file == nil) else {
      throw ValidationError("give either VALUE or --file PATH")
    }
  }

  func run() throws {
    let registry = try options.registry()
    let text = try readValue()
    switch try KeyLocation(of: key, in: registry) {
    case .file(let url):
      let data = Data(text.utf8)
      do {
        _ = try JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed)
      } catch {
        printError("\(key): the value is not JSON, so \(url.path) was not changed")
        throw ExitCode.failure
      }
      try AtomicFile.write(data, to: ResolvedPath.of(url), durable: false, expected: nil)
    case .defaults(let store, let name):
      let literal = text.trimmingCharacters(in: .whitespacesAndNewlines)
      let decoded: String
      do {
        decoded = try INIString.decode(literal, location: "<value>")
      } catch {
        printError(
          "\(key): \(error.description.dropFirst("<value>: ".count)); \(store.file.path) was not changed"
        )
        throw ExitCode.failure
      }
      try DefaultsFile.set(name, literal: decoded, in: store.path)
    case .memory:
      printError("\(key): kept in memory by the process that holds it; there is nothing to set")
      throw ExitCode.failure
    case .other(let kind):
      printError("\(key): the \(kind) strategy is not one tether can write")
      throw ExitCode.failure
    }
  }

  private func readValue() throws -> String {
    if let value { return value }
    let source = file ?? "-"
    let data =
      source == "-"
      ? FileHandle.standardInput.readDataToEndOfFile()
      : try Data(contentsOf: URL(filePath: source))
    return String(decoding: data, as: UTF8.self)
  }
}
