import ArgumentParser
import Foundation
import Tether

/// `export`: every stored value, as one JSON object.
struct ExportCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "export",
    abstract: "Print every stored value as one JSON object, for import.",
    discussion: "Keys with nothing stored are left out, so an import does not pin their "
      + "defaults. An undeclared defaults key is exported as its INI literal.")

  @OptionGroup var options: ConfigOptions

  func run() async throws {
    try await options.withSession { session in
      var values: [String: Any] = [:]
      var failed = false
      for name in session.keyNames {
        let key = try session.key(name)
        switch key.access {
        case .opaque, .foreign:
          Output.error(key.unreachable("export") + "; left out")
          continue
        case .declared, .storedText: break
        }
        do {
          if let value = try await key.exported() { values[name] = value }
        } catch {
          Output.error("\(error)")
          failed = true
        }
      }
      guard !failed else { throw fail("nothing was exported: a value could not be read") }
      Output.line(Output.jsonText(values))
    }
  }
}
