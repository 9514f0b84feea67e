import Foundation
import Testing
import TetherTesting

/// The plain tool has the environment strategy: it reads a key's variable, and refuses to set
/// or reset it.
@Suite struct EnvironmentToolTests {
  static let config = "[keys]\nui.* = environment\n\n[strategy.environment]\nprefix = NOTES_\n"

  @Test func getReadsTheVariableAndSetIsRefused() async throws {
    try await withTemporaryDirectory { home in
      let config = home.appending(path: "tether.conf")
      try Data(Self.config.utf8).write(to: config)
      let get = try await runChild(
        tetherPath, ["get", "--config", config.path, "ui.theme"],
        environment: ["NOTES_UI_THEME": "dark"])
      #expect(get.status == 0, "\(get.errors)")
      #expect(get.output == "dark\n")
      let unset = try await runChild(
        tetherPath, ["get", "--config", config.path, "ui.other"], environment: [:])
      #expect(unset.output.contains("NOTES_UI_OTHER is not set"), "\(unset.output)")
      let set = try await runChild(
        tetherPath, ["set", "--config", config.path, "ui.theme", "light"], environment: [:])
      #expect(set.status == 1)
      #expect(set.errors.contains("only reads"), "\(set.errors)")
    }
  }
}
