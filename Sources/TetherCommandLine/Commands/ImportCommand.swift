import ArgumentParser
import Foundation
import Tether

/// `import`: writes the values of a JSON object, once every one of them is checked.
struct ImportCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "import",
    abstract: "Write the values of a JSON object (as export prints it), checking all first.",
    discussion: "Every key and value is checked before anything is written: one that does not "
      + "fit, or a key the config does not map, writes nothing.")

  @OptionGroup var options: ConfigOptions
  @Argument(help: "The JSON file; - or nothing reads standard input.") var file: String = "-"

  func run() async throws {
    let data = try Output.input(file, as: "the values to import")
    let object: [String: Any]
    do {
      guard let parsed = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
        throw fail("\(file): expected one JSON object of key names and values; nothing written")
      }
      object = parsed
    } catch let error as ExitCode {
      throw error
    } catch {
      throw fail("\(file): not JSON (\(error)); nothing was written")
    }
    try await options.withSession { session in
      var checked: [(ToolKey, ToolKey.Checked)] = []
      var problems: [String] = []
      for name in object.keys.sorted() {
        do {
          let key = try session.lookUp(name)
          checked.append((key, try key.check(json: object[name] ?? NSNull())))
        } catch {
          problems.append("\(error)")
        }
      }
      guard problems.isEmpty else {
        for problem in problems { Output.error(problem) }
        throw fail("nothing was written: \(problems.count) of \(object.count) values refused")
      }
      for (key, value) in checked {
        do {
          try await key.write(checked: value)
        } catch {
          throw fail("\(error)")
        }
      }
    }
  }
}
