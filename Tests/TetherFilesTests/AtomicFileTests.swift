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
  /// round in seven, when the edit fell between the check and the rename). The same with a
  /// spare as the temp file.
  @Test(arguments: [true, false], [false, true])
  func anEditRacingAWriteIsNeverOverwritten(fileExists: Bool, spare: Bool) async throws {
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
              expected: fileExists ? .data(old) : .missing, spare: spare)
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
      #expect(leftovers.filter { !$0.hasSuffix(".tether-spare") } == ["data.json"])
    }
  }

  /// The spare is written over, cut to length and swapped in; the file that came out is the
  /// next write's spare. The file's inode alternates between the two.
  @Test func aSpareIsWrittenOverAndSwappedInAndTheReplacedFileIsTheNextSpare() async throws {
    try await withTemporaryDirectory { folder in
      let path = folder.appending(path: "defaults.ini").path
      let spare = folder.appending(path: ".defaults.ini.tether-spare").path
      let versions = ["first version\n", "a second, longer version\n", "3\n", "four\n"]
      var expected = FileContent.missing
      var inodes: [UInt64] = []
      for version in versions {
        try AtomicFile.write(
          Data(version.utf8), to: path, durable: false, expected: expected, spare: true)
        #expect(FileContent.read(path) == .data(Data(version.utf8)))
        inodes.append(try inode(URL(filePath: path)))
        expected = .data(Data(version.utf8))
      }
      // Written over the one before last each time, exactly to its length.
      #expect(FileContent.read(spare) == .data(Data(versions[2].utf8)))
      #expect(inodes[3] == inodes[1] && inodes[2] != inodes[1], "\(inodes)")
      let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
      #expect(names == [".defaults.ini.tether-spare", "defaults.ini"])
    }
  }

  /// A spare that is a symbolic link, or a file with another name (the replaced file, when the
  /// user hard-linked it elsewhere), is replaced rather than written over.
  @Test(arguments: ["symbolic", "hard"])
  func whatASpareSharesIsNeverWrittenOver(link: String) async throws {
    try await withTemporaryDirectory { folder in
      let path = folder.appending(path: "defaults.ini").path
      let spare = folder.appending(path: ".defaults.ini.tether-spare").path
      let elsewhere = folder.appending(path: "elsewhere.ini").path
      try Data("v1\n".utf8).write(to: URL(filePath: path))
      if link == "symbolic" {
        try Data("not ours\n".utf8).write(to: URL(filePath: elsewhere))
        try FileManager.default.createSymbolicLink(atPath: spare, withDestinationPath: elsewhere)
      } else {
        #expect(Glibc.link(path, elsewhere) == 0)
      }
      let kept = FileContent.read(elsewhere)
      var expected = FileContent.data(Data("v1\n".utf8))
      for version in ["v2\n", "v3\n", "v4\n"] {
        try AtomicFile.write(
          Data(version.utf8), to: path, durable: false, expected: expected, spare: true)
        expected = .data(Data(version.utf8))
        #expect(FileContent.read(path) == expected)
      }
      #expect(FileContent.read(elsewhere) == kept)
      var info = stat()
      #expect(lstat(spare, &info) == 0 && info.st_mode & S_IFMT == S_IFREG)
    }
  }

  /// The spare takes the file's mode each time, also when it had another (the file's before).
  @Test func aSpareTakesTheFilesModeEachTime() async throws {
    try await withTemporaryDirectory { folder in
      let path = folder.appending(path: "defaults.ini").path
      try Data("v1\n".utf8).write(to: URL(filePath: path))
      var expected = FileContent.data(Data("v1\n".utf8))
      for (version, mode) in [("v2\n", 0o640), ("v3\n", 0o640), ("v4\n", 0o600)] {
        #expect(chmod(path, mode_t(mode)) == 0)
        try AtomicFile.write(
          Data(version.utf8), to: path, durable: false, expected: expected, spare: true)
        expected = .data(Data(version.utf8))
        var info = stat()
        #expect(stat(path, &info) == 0)
        #expect(Int(info.st_mode & 0o7777) == mode, "\(version)")
      }
    }
  }
}
