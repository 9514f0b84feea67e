import Foundation
import TetherTesting

/// The built `tether` binary, beside the test bundle.
var tetherPath: String {
  URL(filePath: CommandLine.arguments[0]).deletingLastPathComponent().appending(path: "tether").path
}

/// The repository's Config/tether.conf.
var shippedConfig: String {
  URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appending(path: "Config/tether.conf").path
}

/// Runs `tether` with XDG folders inside `home` (when given), so tests never touch the user's.
func tether(_ arguments: [String], home: URL? = nil) async throws -> ChildResult {
  var environment: [String: String] = [:]
  if let home {
    environment["XDG_DATA_HOME"] = home.appending(path: "data").path
    environment["XDG_CONFIG_HOME"] = home.appending(path: "config").path
  }
  return try await runChild(tetherPath, arguments, environment: environment)
}
