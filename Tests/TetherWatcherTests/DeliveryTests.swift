import Foundation
import Synchronization
import Testing
import TetherTesting
import TetherWatcher

/// Collects what a watch delivers.
final class Deliveries: Sendable {
  private let received = Mutex<[FileContent]>([])

  var all: [FileContent] { received.withLock { $0 } }
  var last: FileContent? { all.last }
  var count: Int { all.count }

  func record(_ content: FileContent) { received.withLock { $0.append(content) } }

  /// Whether the last delivery is `text`.
  func lastIs(_ text: String) -> Bool { last == .data(Data(text.utf8)) }
}

@Suite struct DeliveryTests {
  @Test func anInPlaceWriteIsDeliveredOnceWithTheFinalContent() async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "data.json")
      try Data("1".utf8).write(to: file)
      let deliveries = Deliveries()
      let watch = FileWatcher.shared.watch(file.path) { deliveries.record($0) }
      try Data("2".utf8).write(to: file)
      await expectEventually { deliveries.lastIs("2") }
      #expect(deliveries.count == 1)
      _ = watch
    }
  }
}
