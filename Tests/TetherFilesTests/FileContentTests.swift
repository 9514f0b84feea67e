import Foundation
import Glibc
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

  @Test func aMissingFileIsMissing() async throws {
    try await withTemporaryDirectory { folder in
      #expect(FileContent.read(folder.appending(path: "none.json").path) == .missing)
    }
  }

  /// A FIFO would block its reader in `open` until a writer comes; a device may never end; a
  /// folder or a socket cannot be read: each is refused unread, naming its path.
  @Test func anythingButARegularFileIsRefusedUnreadWithoutBlocking() async throws {
    try await withTemporaryDirectory { folder in
      let pipe = folder.appending(path: "pipe.json")
      try makeFIFO(at: pipe)
      let content = await expectToEnd("reading a FIFO", releasing: { releaseFIFO(pipe) }) {
        FileContent.read(pipe.path)
      }
      #expect(content == .unreadable(.notRegular(path: pipe.path, type: .fifo)))
      #expect(
        "\(FileError.notRegular(path: pipe.path, type: .fifo))".contains("not a regular file"))
      #expect(
        FileContent.read("/dev/zero")
          == .unreadable(.notRegular(path: "/dev/zero", type: .characterDevice)))
      #expect(
        FileContent.read(folder.path) == .unreadable(.notRegular(path: folder.path, type: .folder)))
      let socket = folder.appending(path: "socket.json")
      let listener = try bindSocket(at: socket.path)
      defer { close(listener) }
      #expect(
        FileContent.read(socket.path) == .unreadable(.notRegular(path: socket.path, type: .socket)))
    }
  }
}

/// A Unix-domain socket bound at `path`; the caller closes it.
func bindSocket(at path: String) throws -> Int32 {
  let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
  var address = sockaddr_un()
  address.sun_family = sa_family_t(AF_UNIX)
  withUnsafeMutableBytes(of: &address.sun_path) { buffer in
    buffer.copyBytes(from: path.utf8.prefix(buffer.count - 1))
  }
  let bound = withUnsafePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
      bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
    }
  }
  guard fd >= 0, bound == 0 else {
    close(fd)
    throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
  }
  return fd
}
