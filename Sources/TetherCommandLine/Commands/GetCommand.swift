import ArgumentParser
import Foundation
import Tether

/// `get KEY`: the value in effect.
struct GetCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "get",
    abstract: "Print a key's value: the INI literal for scalars, JSON for the rest.",
    discussion: "A declared key prints its default when nothing is stored; an undeclared one "
      + "says there is no value.")

  @OptionGroup var options: ConfigOptions
  @OptionGroup var output: OutputOptions
  @Argument(help: "The key's name.", completion: keyNameCompletion) var key: String

  func run() async throws {
    try await options.withSession { session in
      let key = try session.key(key)
      let reading: ToolKey.Reading
      do {
        reading = try await key.read()
      } catch {
        throw fail("\(error)")
      }
      if output.json {
        Output.json([
          "key": key.name, "value": reading.value?.json ?? NSNull(),
          "source": reading.source ?? (reading.value == nil ? NSNull() : "default"),
        ])
      } else if let value = reading.value {
        Output.line(reading.note.map { "\(value.text)  (\($0))" } ?? value.text)
      } else {
        Output.line("\(key.name): \(reading.absence ?? "no value")")
      }
    }
  }
}
