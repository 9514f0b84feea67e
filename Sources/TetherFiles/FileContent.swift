import CTetherLinux
package import Foundation
import Glibc

/// What a watched file holds, as the watcher last read it.
package enum FileContent: Sendable, Equatable {
  /// There is no file at the path.
  case missing
  /// The file's bytes.
  case data(Data)
  /// Something is at the path but could not be read: a failed system call, or something that
  /// is not a regular file (never opened in a way that could block, never read).
  case unreadable(FileError)

  /// Reads the file at `path`, following symlinks.
  package static func read(_ path: String) -> FileContent {
    var version: FileVersion?
    return read(path, version: &version)
  }

  /// Reads the file at `path` as ``read(_:)`` does, setting `version` to the version of the
  /// file its bytes came from (`nil` when it has none: missing or unreadable).
  static func read(_ path: String, version: inout FileVersion?) -> FileContent {
    do {
      return .data(try readData(path, version: &version))
    } catch  where error.code == ENOENT || error.code == ENOTDIR {
      return .missing
    } catch {
      return .unreadable(error)
    }
  }

  /// The whole file at `path`. A regular file reads short only at its end, so a short read
  /// ends it without a second call to be told so (as Foundation's reader, which stops at the
  /// size `fstat` gave, also trusts); pass `false` for a kernel file that can read short before.
  ///
  /// Anything but a regular file is ``FileError/notRegular(path:type:)``: opened without
  /// blocking (a FIFO would wait for a writer in `open`) and without becoming the controlling
  /// terminal, then refused by an `fstat` of the descriptor before it is read.
  ///
  /// Most watched files are small: the first read goes to the stack and the bytes are copied
  /// once, into `Data` of their size. Only a file that fills it is read on at the size `fstat`
  /// gave, in one call instead of growing a buffer.
  package static func readData(
    _ path: String, shortReadEnds: Bool = true
  ) throws(FileError) -> Data {
    var version: FileVersion?
    return try readData(path, shortReadEnds: shortReadEnds, version: &version)
  }

  /// ``readData(_:shortReadEnds:)``, setting `version` to the version of the file read.
  private static func readData(
    _ path: String, shortReadEnds: Bool = true, version: inout FileVersion?
  ) throws(FileError) -> Data {
    let fd: Int32
    do {
      // `withCString`: passing the String itself copies it into a new array for every call.
      fd = try systemCall("open", path: path) {
        path.withCString { open($0, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY) }
      }
    } catch  where error.code == ENXIO || error.code == ENODEV {
      // A socket, or a device with nothing behind it: said as what it is.
      throw refusal(path) ?? .system(error)
    } catch {
      throw .system(error)
    }
    defer { close(fd) }
    return try readData(fd, path: path, shortReadEnds: shortReadEnds, version: &version)
  }

  /// ``FileError/notRegular(path:type:)`` for what is at `path`, if `stat` finds it is not a
  /// regular file.
  private static func refusal(_ path: String) -> FileError? {
    var info = stat()
    do {
      try systemCall("stat", path: path) { stat(path, &info) }
    } catch {
      return nil
    }
    return FileError.refusing(path, mode: info.st_mode)
  }

  /// The file open at `fd` (`path` names it in errors), read as ``read(_:)`` reads it. The
  /// descriptor must have been opened with `O_NONBLOCK`, so that opening a FIFO did not block.
  static func read(_ fd: Int32, path: String, version: inout FileVersion?) -> FileContent {
    do {
      return .data(try readData(fd, path: path, shortReadEnds: true, version: &version))
    } catch {
      return .unreadable(error)
    }
  }

  /// ``readData(_:shortReadEnds:)`` of a file open at `fd`, from where it stands; refused
  /// unread when it is not a regular file. `O_NONBLOCK` changes nothing for a regular file.
  private static func readData(
    _ fd: Int32, path: String, shortReadEnds: Bool, version: inout FileVersion?
  ) throws(FileError) -> Data {
    var info = stat()
    do {
      try systemCall("fstat", path: path) { fstat(fd, &info) }
    } catch {
      throw .system(error)
    }
    if let refusal = FileError.refusing(path, mode: info.st_mode) { throw refusal }
    version = FileVersion(info)
    do {
      return try readRegular(fd, path: path, size: Int(info.st_size), shortReadEnds: shortReadEnds)
    } catch {
      throw .system(error)
    }
  }

  /// The regular file open at `fd`, of `size` bytes when it was asked (a kernel file says 0).
  private static func readRegular(
    _ fd: Int32, path: String, size: Int, shortReadEnds: Bool
  ) throws(SystemError) -> Data {
    let first = try firstRead(fd, path: path, shortReadEnds: shortReadEnds)
    if first.done { return first.data }
    var data = first.data
    // One more byte than the size said, so that a file read whole ends in a short read.
    var chunk = max(size + 1 - data.count, firstReadSize)
    while true {
      let start = data.count
      data.count = start + chunk
      let count = data.withUnsafeMutableBytes { bytes in
        Result { () throws(SystemError) in
          try systemCall("read", path: path) {
            Glibc.read(fd, bytes.baseAddress! + start, chunk)
          }
        }
      }
      data.count = start + (try count.get())
      if data.count == start || (shortReadEnds && data.count < start + chunk) { return data }
      chunk = max(chunk, data.count)
    }
  }

  /// Bytes read on the stack before a file is asked its size.
  static let firstReadSize = Int(TETHER_STACK_BUFFER_SIZE)

  /// The first read of `fd`, into a buffer on the stack: its bytes, copied into `Data` of their
  /// size, and whether the file ended there.
  private static func firstRead(
    _ fd: Int32, path: String, shortReadEnds: Bool
  ) throws(SystemError) -> (data: Data, done: Bool) {
    var read = FirstRead(fd: fd, path: path, shortReadEnds: shortReadEnds)
    withUnsafeMutablePointer(to: &read) { read in
      tether_with_stack_buffer(read) { read, buffer, count in
        read!.assumingMemoryBound(to: FirstRead.self).pointee.fill(
          UnsafeMutableRawBufferPointer(start: buffer, count: count))
      }
    }
    return try read.result.get()
  }

  /// What `firstRead` hands through C to the code that fills the stack buffer.
  private struct FirstRead {
    let fd: Int32
    let path: String
    let shortReadEnds: Bool
    var result: Result<(data: Data, done: Bool), SystemError> = .success((Data(), true))

    mutating func fill(_ buffer: UnsafeMutableRawBufferPointer) {
      let (fd, path, shortReadEnds) = (fd, path, shortReadEnds)
      result = Result { () throws(SystemError) in
        let count = try systemCall("read", path: path) {
          Glibc.read(fd, buffer.baseAddress, buffer.count)
        }
        let data = Data(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
        return (data, count == 0 || (shortReadEnds && count < buffer.count))
      }
    }
  }
}

/// What `stat` says about a file: enough to notice most changes without reading it.
package struct FileIdentity: Sendable, Equatable {
  let device: UInt64
  let inode: UInt64
  let size: Int64
  let modified: timespec
  let changed: timespec

  /// The identity of the file at `path`, or `nil` when there is none.
  package static func of(_ path: String) -> FileIdentity? {
    var info = stat()
    do {
      try systemCall("stat", path: path) { stat(path, &info) }
    } catch {
      return nil
    }
    return FileIdentity(
      device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
      modified: info.st_mtim, changed: info.st_ctim)
  }

  /// How long before `now` (wall-clock nanoseconds since 1970) the file last changed, by the
  /// later of its modification and status-change times; zero when that lies ahead of `now`.
  package func nanosecondsSinceChange(now: UInt64) -> UInt64 {
    func nanoseconds(_ time: timespec) -> UInt64 {
      guard time.tv_sec >= 0 else { return 0 }
      return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
    let changed = max(nanoseconds(modified), nanoseconds(self.changed))
    return now > changed ? now - changed : 0
  }

  package static func == (lhs: FileIdentity, rhs: FileIdentity) -> Bool {
    lhs.device == rhs.device && lhs.inode == rhs.inode && lhs.size == rhs.size
      && lhs.modified.tv_sec == rhs.modified.tv_sec && lhs.modified.tv_nsec == rhs.modified.tv_nsec
      && lhs.changed.tv_sec == rhs.changed.tv_sec && lhs.changed.tv_nsec == rhs.changed.tv_nsec
  }
}
