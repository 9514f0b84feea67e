import Foundation

/// 50 files of a folder held open for writing: queues watcher events cheaply, one
/// modification event per one-byte write. The files are written in turn, so that no event
/// repeats the one before it (the kernel merges those).
struct NoiseFiles: Sendable {
  private let descriptors: [Int32]

  /// Opens (making them) `folder`/noise0 to noise49; the helper fails if one cannot be.
  init(in folder: String) {
    descriptors = (0..<50).map { open("\(folder)/noise\($0)", O_WRONLY | O_CREAT, 0o600) }
    guard descriptors.allSatisfy({ $0 >= 0 }) else {
      Helper.fail("cannot open the noise files: \(errno)")
    }
  }

  /// Queues `count` modification events.
  func modify(_ count: Int) {
    let byte: [UInt8] = [0x78]
    for index in 0..<count { _ = pwrite(descriptors[index % descriptors.count], byte, 1, 0) }
  }

  func close() {
    for descriptor in descriptors { Glibc.close(descriptor) }
  }
}
