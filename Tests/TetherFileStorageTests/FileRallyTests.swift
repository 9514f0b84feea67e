import Foundation
import Testing
import Tether
import TetherTestHelperSupport
import TetherTesting

/// Two processes answering each other's changes of one file at once: nothing either writes is
/// lost (DESIGN §12).
@Suite(.tetherBootstrap(), .timeLimit(.minutes(10))) struct FileRallyTests {
  @Test func twoProcessesAnsweringEachOthersWritesLoseNone() async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "count.json")
      try Data("0".utf8).write(to: file)
      let until = Soak.size(ci: 1_000, soak: 10_000)
      try await Rally.expectFinished(
        store: .file, file: file.path, key: "count", until: until,
        go: folder.appending(path: "go").path)
      #expect(String(decoding: try Data(contentsOf: file), as: UTF8.self) == "\(until)")
    }
  }
}
