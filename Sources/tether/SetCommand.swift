import ArgumentParser
import Foundation
import Tether

/// `tether set KEY VALUE`: validates, then writes atomically through the library's own code.
struct SetCommand: AsyncParsableCommand {
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

  func run() async throws {
    let mapped = try MappedKey(key, in: try options.registry())
    let text = try readValue()
    guard let strategy = mapped.strategy else {
      printError("\(key): the \(mapped.kind) strategy is not one tether can write")
      throw ExitCode.failure
    }
    do {
      try await strategy.setStoredText(text, of: key, options: mapped.options)
    } catch let error as StoredTextError {
      printError("\(key): \(error)")
      throw ExitCode.failure
    }
  }

  private func readValue() throws -> String {
    if let value { return value }
    let source = file ?? "-"
    let data: Data
    if source == "-" {
      data = FileHandle.standardInput.readDataToEndOfFile()
    } else {
      do {
        data = try UserFile.read(source, as: "the value (--file)")
      } catch {
        printError("\(error)")
        throw ExitCode.failure
      }
    }
    return String(decoding: data, as: UTF8.self)
  }
}
