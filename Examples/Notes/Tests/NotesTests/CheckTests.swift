import Foundation
import Testing
import TetherTesting

/// `notes settings check`: the config against the app's strategies and declared keys.
@Suite struct CheckTests {
  @Test func theShippedConfigIsValid() async throws {
    try await withHome { home in
      let result = try await home.settings("check")
      #expect(result.status == 0, "\(result.errors)")
      #expect(
        result.output.contains("OK: 3 key mappings, 3 strategies (defaults, envdir, file)"),
        "\(result.output)")
    }
  }

  /// Needs the registry's startup checks of key declarations (issue37-registry): until they
  /// land, a `[keys]` name no declared key has passes the check.
  @Test func aKeysNameThatNoDeclaredKeyHasFailsTheCheck() async throws {
    try await withHome { home in
      var home = home
      home.config = try Self.config(in: home, adding: "[keys]", "lanches = defaults")
      let result = try await home.settings("check")
      withKnownIssue("the registry does not check [keys] names against declarations yet") {
        #expect(result.status == 1, "\(result.output)")
        #expect(result.errors.contains("lanches"), "\(result.errors)")
      }
    }
  }

  @Test func anEnvdirSectionWithoutItsDirectoryIsAnErrorNamingTheConfig() async throws {
    try await withHome { home in
      var home = home
      let text = try String(contentsOfFile: shippedConfig, encoding: .utf8)
      let config = home.folder.appending(path: "tether.conf")
      try Data(
        text.replacingOccurrences(of: "directory = $XDG_CONFIG_HOME/notes/env", with: "").utf8
      ).write(to: config)
      home.config = config.path
      let result = try await home.settings("check")
      #expect(result.status == 1)
      #expect(
        result.errors.contains("\(config.path)"), "\(result.errors)")
      #expect(result.errors.contains("directory = PATH"), "\(result.errors)")
    }
  }

  /// A copy of the shipped config with `line` added after the `section` header.
  static func config(in home: Home, adding section: String, _ line: String) throws -> String {
    let text = try String(contentsOfFile: shippedConfig, encoding: .utf8)
    let config = home.folder.appending(path: "tether.conf")
    try Data(text.replacingOccurrences(of: "\(section)\n", with: "\(section)\n\(line)\n").utf8)
      .write(to: config)
    return config.path
  }
}
