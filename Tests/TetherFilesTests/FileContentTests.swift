import Foundation
import Testing
import TetherFiles
import TetherTesting

@Suite struct FileContentTests {
  /// Sizes around the reader's first (16 KiB) read: a full first read is not the end, a short
  /// one is; a larger file is read at the size `fstat` gives.
  @Test(arguments: [0, 1, 16_383, 16_384, 16_385, 65_536, 131_072, 1_000_003])
  func aFileIsReadWhole(size: Int) async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "data.bin")
      let bytes = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) })
      try bytes.write(to: file)
      #expect(FileContent.read(file.path) == .data(bytes))
    }
  }

  @Test func aKernelFileThatReadsShortIsReadToItsEnd() throws {
    // /proc files hand out a page at a time and `fstat` calls them empty; a test process's map
    // of its libraries is longer than the first read, and the stack comes after them.
    let maps = try FileContent.readData("/proc/self/maps", shortReadEnds: false)
    #expect(String(decoding: maps, as: UTF8.self).contains("[stack]"))
  }

  @Test func aMissingFileIsMissingAndAFolderIsUnreadable() async throws {
    try await withTemporaryDirectory { folder in
      #expect(FileContent.read(folder.appending(path: "none.json").path) == .missing)
      guard case .unreadable(let error) = FileContent.read(folder.path) else {
        Issue.record("a folder read as a file")
        return
      }
      #expect(error.call == "read" && error.path == folder.path)
    }
  }
}
