import Foundation
import Testing
import TetherTestHelperSupport
import TetherTesting

/// The logger an app hands `TetherSystem.bootstrap` is the one every module logs through, in a
/// process of its own (the logger is the process's).
@Suite struct GivenLoggerTests {
  @Test func everyModuleLogsThroughTheGivenLoggerNamingItself() async throws {
    try await withTemporaryDirectory { folder in
      let run = try await runHelper(.givenLogger(folder: folder.path))
      #expect(run.status == 0, "\(run.errors)")
      let messages = run.report.messages ?? []
      let unmapped = messages.filter { $0.contains("\"unmapped\"") }
      #expect(
        unmapped.count == 1 && unmapped[0].hasPrefix("given error tether.core: "),
        "\(messages)")
      let shared = messages.filter { $0.contains("count.json: open with") }
      #expect(
        shared.count == 1 && shared[0].hasPrefix("given warning tether.file: "), "\(messages)")
      // Nothing of Tether's through the logging system, and no message names its module again.
      #expect(!messages.contains { $0.hasPrefix("system ") }, "\(messages)")
      for message in messages {
        let text = message.split(separator: ": ", maxSplits: 1).last ?? ""
        #expect(!text.lowercased().contains("tether."), "\(message)")
        #expect(!text.lowercased().hasPrefix("[tether]"), "\(message)")
      }
    }
  }
}
