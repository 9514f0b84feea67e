import Foundation

/// The test helper executable, built beside the test bundle.
var helperPath: String {
  URL(filePath: CommandLine.arguments[0]).deletingLastPathComponent()
    .appending(path: "tether-test-helper").path
}
