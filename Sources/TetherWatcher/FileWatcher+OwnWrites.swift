import Foundation
import TetherFiles

/// This process's own writes and removals of watched files, announced and recorded through
/// ``FileWatch/replacing(with:_:)`` and ``FileWatch/removing(_:)``: content equal to one is not
/// an external change.
extension FileWatcher {
  func expectOwnWrite(_ key: HashedPath, data: Data) {
    state.withLock { $0.files.expectOwnWrite(key, data: data) }
  }

  func recordOwnWrite(_ key: HashedPath, data: Data, version: FileVersion) {
    state.withLock { $0.files.recordOwnWrite(key, data: data, version: version) }
  }

  func ownWritesLanded(_ key: HashedPath) -> UInt64 {
    state.withLock { $0.files.ownWritesLanded(key) } ?? 0
  }

  func handedOver(_ key: HashedPath) -> FileSnapshot? {
    state.withLock { $0.files.handedOver(key) }
  }

  func cancelOwnWrite(_ key: HashedPath, data: Data) {
    state.withLock { $0.files.cancelOwnWrite(key, data: data) }
  }

  func expectOwnRemoval(_ key: HashedPath) {
    state.withLock { $0.files.expectOwnRemoval(key) }
  }

  func recordOwnRemoval(_ key: HashedPath) {
    state.withLock { $0.files.recordOwnRemoval(key) }
  }

  func cancelOwnRemoval(_ key: HashedPath) {
    state.withLock { $0.files.cancelOwnRemoval(key) }
  }
}
