import Foundation
import Testing
import Tether
import TetherTesting

/// `TetherConfiguration.discover(app:)`: `$TETHER_CONFIG`, else `./Config/tether.conf`, else
/// `$XDG_CONFIG_HOME/<app>/tether.conf`, the first that exists.
@Suite struct ConfigDiscoveryTests {
  /// A folder with a project (`project/Config/tether.conf`), a user config
  /// (`xdg/notes/tether.conf`), a home (`home/.config/notes/tether.conf`) and a named config
  /// (`named.conf`), each present when listed in `present`.
  static func layout(_ folder: URL, present: Set<String>) throws {
    for path in [
      "project/Config/tether.conf", "xdg/notes/tether.conf", "home/.config/notes/tether.conf",
      "named.conf",
    ] {
      let url = folder.appending(path: path)
      try FileManager.default.createDirectory(
        at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
      if present.contains(path) { try Data("[keys]\n".utf8).write(to: url) }
    }
  }

  static func discover(
    in folder: URL, _ environment: [String: String]
  ) throws(TetherError) -> String {
    try TetherConfiguration.discover(
      app: "notes", environment: environment,
      currentDirectory: folder.appending(path: "project").path
    ).origin
  }

  static let every: Set<String> = [
    "project/Config/tether.conf", "xdg/notes/tether.conf", "home/.config/notes/tether.conf",
    "named.conf",
  ]

  @Test func theEnvironmentVariableComesFirst() async throws {
    try await withTemporaryDirectory { folder in
      try Self.layout(folder, present: Self.every)
      let environment = [
        "TETHER_CONFIG": folder.appending(path: "named.conf").path,
        "XDG_CONFIG_HOME": folder.appending(path: "xdg").path,
        "HOME": folder.appending(path: "home").path,
      ]
      #expect(try Self.discover(in: folder, environment) == environment["TETHER_CONFIG"])
      // A relative one is relative to the current folder.
      var relative = environment
      relative["TETHER_CONFIG"] = "../named.conf"
      #expect(try Self.discover(in: folder, relative) == folder.appending(path: "named.conf").path)
      // Empty is unset.
      relative["TETHER_CONFIG"] = ""
      #expect(
        try Self.discover(in: folder, relative)
          == folder.appending(path: "project/Config/tether.conf").path)
    }
  }

  @Test func aMissingFileNamedByTheVariableIsAnErrorNotAFallThrough() async throws {
    try await withTemporaryDirectory { folder in
      try Self.layout(folder, present: Self.every)
      let missing = folder.appending(path: "missing.conf").path
      #expect(
        throws: TetherError.unusableFile(
          missing, reason: "TETHER_CONFIG names this config file, but there is no such file")
      ) {
        try Self.discover(in: folder, ["TETHER_CONFIG": missing, "HOME": "/nonexistent"])
      }
    }
  }

  @Test func theProjectConfigComesBeforeTheUsers() async throws {
    try await withTemporaryDirectory { folder in
      try Self.layout(folder, present: Self.every.subtracting(["named.conf"]))
      let environment = [
        "XDG_CONFIG_HOME": folder.appending(path: "xdg").path,
        "HOME": folder.appending(path: "home").path,
      ]
      #expect(
        try Self.discover(in: folder, environment)
          == folder.appending(path: "project/Config/tether.conf").path)
    }
  }

  @Test func theUsersConfigIsUnderXDGConfigHomeElseDotConfig() async throws {
    try await withTemporaryDirectory { folder in
      try Self.layout(folder, present: ["xdg/notes/tether.conf", "home/.config/notes/tether.conf"])
      let home = folder.appending(path: "home").path
      #expect(
        try Self.discover(
          in: folder, ["XDG_CONFIG_HOME": folder.appending(path: "xdg").path, "HOME": home])
          == folder.appending(path: "xdg/notes/tether.conf").path)
      // Unset, or relative (which the XDG specification says to ignore): ~/.config.
      for environment in [["HOME": home], ["HOME": home, "XDG_CONFIG_HOME": "xdg"]] {
        #expect(
          try Self.discover(in: folder, environment)
            == folder.appending(path: "home/.config/notes/tether.conf").path)
      }
    }
  }

  @Test func nothingFoundListsEveryPlaceTried() async throws {
    try await withTemporaryDirectory { folder in
      try Self.layout(folder, present: [])
      let xdg = folder.appending(path: "xdg").path
      let project = folder.appending(path: "project/Config/tether.conf").path
      let error = #expect(throws: TetherError.self) {
        try Self.discover(in: folder, ["XDG_CONFIG_HOME": xdg])
      }
      #expect(
        error
          == .configurationNotFound(tried: [
            "$TETHER_CONFIG (not set)", project, "\(xdg)/notes/tether.conf",
          ]))
      #expect(
        error?.description
          == "no config file found; looked for $TETHER_CONFIG (not set), then \(project), then \(xdg)/notes/tether.conf"
      )
      // Without HOME there is no user config folder to look in, and that is said.
      #expect(
        throws: TetherError.configurationNotFound(tried: [
          "$TETHER_CONFIG (not set)", project,
          "$XDG_CONFIG_HOME/notes/tether.conf (HOME is not set to an absolute path)",
        ])
      ) { try Self.discover(in: folder, [:]) }
    }
  }

  @Test func anAppNameMustBeOneFolderName() {
    for app in ["", "a/b", "..", "."] {
      #expect(throws: TetherError.self) {
        try TetherConfiguration.discover(app: app, environment: [:], currentDirectory: "/")
      }
    }
  }
}
