import Foundation
import Testing
import Tether
import TetherDefaults
import TetherTestHelperSupport
import TetherTesting

/// Two processes answering each other's changes of one defaults key at once: nothing either
/// writes is lost (DESIGN §12).
@Suite(.tetherBootstrap(), .timeLimit(.minutes(10))) struct DefaultsRallyTests {
  @Test func twoProcessesAnsweringEachOthersWritesLoseNone() async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "defaults.ini")
      try Data("count = 0\nother = kept\n".utf8).write(to: file)
      let until = Soak.size(ci: 1_000, soak: 10_000)
      try await Rally.expectFinished(
        store: .defaults, file: file.path, key: "count", until: until,
        go: folder.appending(path: "go").path)
      #expect(contents(file) == "count = \(until)\nother = kept\n")
    }
  }
}
