import ArgumentParser
import Foundation
import Tether

/// `set KEY VALUE`: checks the value, then writes it through the library.
struct SetCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "set",
    abstract: "Write a key's value: an INI literal for scalars (42, true, text), JSON otherwise.",
    discussion: "A declared key takes a value of its type only; an undeclared one its stored "
      + "form (JSON for files, an INI literal for defaults). A value that does not fit is "
      + "refused, naming the type, and nothing is written.")

  @OptionGroup var options: ConfigOptions
  @Argument(help: "The key's name.", completion: keyNameCompletion) var key: String
  @Argument(help: "The value (or use --file).") var value: String?
  @Option(name: .long, help: "Read the value from a file; - reads standard input.")
  var file: String?

  func validate() throws {
    guard (value == nil) != (file == nil) else {
      throw ValidationError("give either VALUE or --file PATH")
    }
  }

  func run() async throws {
    try await options.withSession { session in
      let key = try session.key(key)
      let text = try readValue()
      do {
        try await key.write(text)
      } catch {
        throw fail("\(error)")
      }
    }
  }

  private func readValue() throws -> String {
    if let value { return value }
    return String(decoding: try Output.input(file ?? "-", as: "the value (--file)"), as: UTF8.self)
  }
}
