import Foundation
import Glibc
import Testing
import TetherTesting
import TetherWatcher

@Suite struct AtomicFileTests {
  @Test(arguments: [
    (".facts.json.tether-Ab3xY9", true),
    (".a.tether-000000", true),
    ("facts.json.tether-Ab3xY9", false),
    (".facts.json.tether-Ab3xY", false),
    (".facts.json.tether-Ab3xY9z", false),
    (".facts.json.tether-Ab3-Y9", false),
    (".facts.json", false),
    (".tether-Ab3xY9", false),
  ])
  func ourTemporaryFilesAreToldApart(name: String, isOurs: Bool) {
    #expect(AtomicFile.isTemporary(name) == isOurs)
  }

  @Test func aFolderIsClearedOfEveryFilesStaleTemporariesButNotOfLiveOnes() async throws {
    try await withTemporaryDirectory { folder in
      let stale = folder.appending(path: ".other.json.tether-Stale1").path
      let live = folder.appending(path: ".other.json.tether-Live22").path
      let foreign = folder.appending(path: ".other.json.backup").path
      for path in [stale, live, foreign] {
        #expect(FileManager.default.createFile(atPath: path, contents: Data("x".utf8)))
      }
      // A writer still at work holds its temp file locked.
      let fd = open(live, O_RDONLY | O_CLOEXEC)
      defer { close(fd) }
      #expect(flock(fd, LOCK_EX) == 0)
      AtomicFile.removeStaleTemporaries(of: folder.appending(path: "facts.json").path)
      #expect(!FileManager.default.fileExists(atPath: stale), "a crashed writer's leftover")
      #expect(FileManager.default.fileExists(atPath: live), "a live writer's temp file")
      #expect(FileManager.default.fileExists(atPath: foreign), "not ours")
    }
  }
}
