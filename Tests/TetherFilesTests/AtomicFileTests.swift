import Foundation
import Glibc
import Synchronization
import Testing
import TetherFiles
import TetherTesting

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
    (".facts.json.tether-spare", false),
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

  /// An editor's save (a rename) racing a write that expects the file's earlier content: either
  /// the edit lands first and the write gives way, or the write lands first and the edit
  /// replaces it. Both end with the edit; a check followed by a plain rename lost it (about one
  /// round in seven, when the edit fell between the check and the rename).
  @Test(arguments: [true, false])
  func anEditRacingAWriteIsNeverOverwritten(fileExists: Bool) async throws {
    try await withTemporaryDirectory { folder in
      let url = folder.appending(path: "data.json")
      let old = Data("old".utf8)
      var outcomes: [String: Int] = [:]
      for round in 0..<500 {
        if fileExists {
          try old.write(to: url)
        } else {
          try? FileManager.default.removeItem(at: url)
        }
        let theirs = Data("theirs \(round)".utf8)
        let wrote = Mutex<String>("")
        DispatchQueue.concurrentPerform(iterations: 2) { side in
          guard side == 0 else {
            // Spread over the write's length (its fsync is most of it), so that some edits
            // land between its check and its rename.
            let start = ContinuousClock.now
            let delay = Duration.microseconds(Int.random(in: 0..<600))
            while ContinuousClock.now - start < delay {}
            return (try? theirs.write(to: url, options: .atomic)) ?? ()
          }
          do {
            try AtomicFile.write(
              Data("ours".utf8), to: url.path, durable: false,
              expected: FileSnapshot(fileExists ? .data(old) : .missing))
            wrote.withLock { $0 = "written" }
          } catch is AtomicFile.Conflict {
            wrote.withLock { $0 = "gave way" }
          } catch {
            wrote.withLock { $0 = "\(error)" }
          }
        }
        outcomes[wrote.withLock { $0 }, default: 0] += 1
        #expect(try Data(contentsOf: url) == theirs, "round \(round)")
      }
      #expect(Set(outcomes.keys).isSubset(of: ["written", "gave way"]), "\(outcomes)")
      let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path)
      #expect(leftovers == ["data.json"])
    }
  }

  /// Renaming over a FIFO, a device or a socket would destroy what someone put there, and
  /// reading one to compare would block: each write is refused, naming the path, and the
  /// thing stays, with no temp file left beside it.
  @Test(arguments: [nil, FileContent.missing, .data(Data("1".utf8))])
  func aFIFOOrAFolderIsNeitherWrittenIntoNorReplaced(expected: FileContent?) async throws {
    try await withTemporaryDirectory { folder in
      let pipe = folder.appending(path: "pipe.json")
      try makeFIFO(at: pipe)
      let error = await expectToEnd("writing over a FIFO", releasing: { releaseFIFO(pipe) }) {
        do {
          try AtomicFile.write(
            Data("2".utf8), to: pipe.path, durable: false,
            expected: expected.map { FileSnapshot($0) })
          return FileError?.none
        } catch {
          return error as? FileError
        }
      }
      #expect(error == .notRegular(path: pipe.path, type: .fifo))
      var info = stat()
      #expect(lstat(pipe.path, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)
      let inner = folder.appending(path: "inner.json")
      try FileManager.default.createDirectory(at: inner, withIntermediateDirectories: false)
      #expect(throws: FileError.notRegular(path: inner.path, type: .folder)) {
        try AtomicFile.write(
          Data("2".utf8), to: inner.path, durable: false,
          expected: expected.map { FileSnapshot($0) })
      }
      let left = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
      #expect(left == ["inner.json", "pipe.json"])
    }
  }
}
