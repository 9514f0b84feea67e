import ArgumentParser
import Foundation
import Tether

/// `describe KEY`: what the key is and where it lives.
struct DescribeCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "describe",
    abstract: "Show a key's type, default, summary, strategy and where it lives.")

  @OptionGroup var options: ConfigOptions
  @OptionGroup var output: OutputOptions
  @Argument(help: "The key's name.", completion: keyNameCompletion) var key: String

  func run() async throws {
    try await options.withSession { session in
      let key = try session.key(key)
      var fields: [(String, Any)] = [("key", key.name)]
      if let declaration = key.declaration {
        let defaultValue: ShownValue
        do {
          defaultValue = try DeclaredValues.defaultValue(of: declaration.typed)
        } catch {
          throw fail("\(key.name): its default cannot be shown: \(error)")
        }
        fields += [
          ("type", declaration.typeName),
          ("default", output.json ? defaultValue.json : defaultValue.text),
          ("summary", declaration.summary), ("declared", declaration.location),
        ]
      } else {
        fields.append(("declared", output.json ? NSNull() : "no (its type is not known here)"))
      }
      fields += [
        ("strategy", key.strategy == key.kind ? key.kind : "\(key.strategy) (\(key.kind))"),
        ("mapped", key.mappedAt), ("location", key.location),
      ]
      if output.json {
        Output.json(Dictionary(fields, uniquingKeysWith: { first, _ in first }))
      } else {
        let width = fields.map(\.0.count).max() ?? 0
        for (name, value) in fields {
          Output.line(
            "\(name):".padding(toLength: width + 2, withPad: " ", startingAt: 0) + "\(value)")
        }
      }
    }
  }
}
