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

  @Test func aKeysNameThatNoDeclaredKeyHasFailsTheCheckAndTheStart() async throws {
    try await withHome { home in
      var home = home
      home.config = try Self.config(in: home, adding: "[keys]", "lanches = defaults")
      let expected =
        "\(home.config):3: [keys] maps \"lanches\", which is not a declared key; did you mean "
        + "\"launches\"?"
      let check = try await home.settings("check")
      #expect(check.status == 1, "\(check.output)")
      #expect(check.errors.contains(expected), "\(check.errors)")
      let start = try await home.notes()
      #expect(start.status == 1)
      #expect(start.errors.contains(expected), "\(start.errors)")
      #expect(try home.files().isEmpty, "nothing is written")
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
